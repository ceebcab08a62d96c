import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildSignString, extractJsonMember, loadPrivateKey, loadPublicKey, responseMemberName, sign, verify } from '../../../plugins/payment/qrpay/signing.js';
import { EXPECTED_REQUEST_SIGNATURE, EXPECTED_REQUEST_STRING, REQUEST, TEST_MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT_PUBLIC_KEY_PEM } from './qrpay-test-keys.js';

const NOTIFICATION = {
  notify_type: 'trade_status_sync',
  notify_id: 'n-0001',
  app_id: '2021000000000001',
  out_trade_no: 'P202401010001',
  trade_no: '2024010222000001',
  trade_status: 'TRADE_SUCCESS',
  total_amount: '88.80',
  receipt_amount: '88.80',
  buyer_pay_amount: '88.80',
  gmt_payment: '2024-01-02 03:05:00',
  sign_type: 'RSA2',
  sign: 'placeholder',
};

function pemBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
}

describe('qrpay signing', () => {
  it('builds the request string: byte order, empty values dropped, values raw, sign excluded, sign_type kept', () => {
    expect(buildSignString(REQUEST)).toBe(EXPECTED_REQUEST_STRING);
  });

  it('builds the notification string without sign and sign_type', () => {
    expect(buildSignString(NOTIFICATION, { excludeSignType: true })).toBe(
      'app_id=2021000000000001&buyer_pay_amount=88.80&gmt_payment=2024-01-02 03:05:00&notify_id=n-0001' +
        '&notify_type=trade_status_sync&out_trade_no=P202401010001&receipt_amount=88.80&total_amount=88.80' +
        '&trade_no=2024010222000001&trade_status=TRADE_SUCCESS',
    );
  });

  it('sorts keys by UTF-8 byte value, not by UTF-16 code unit', () => {
    const params = { '\u{1F600}': '6', '\uFF21': '5', ab: '9', a_b: '8', a: '4', _x: '3', Z1: '2', B: '1' };
    expect(buildSignString(params)).toBe('B=1&Z1=2&_x=3&a=4&a_b=8&ab=9&\uFF21=5&\u{1F600}=6');
  });

  it('signs the known vector exactly as openssl does (SHA256withRSA)', () => {
    expect(sign(EXPECTED_REQUEST_STRING, TEST_MERCHANT_PRIVATE_KEY_PEM)).toBe(EXPECTED_REQUEST_SIGNATURE);
    expect(verify(EXPECTED_REQUEST_STRING, EXPECTED_REQUEST_SIGNATURE, TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(true);
  });

  it('accepts keys as PEM or as bare base64 bodies', () => {
    const signature = sign('hello', pemBody(TEST_MERCHANT_PRIVATE_KEY_PEM));
    expect(verify('hello', signature, pemBody(TEST_MERCHANT_PUBLIC_KEY_PEM))).toBe(true);
    expect(loadPrivateKey(TEST_MERCHANT_PRIVATE_KEY_PEM).asymmetricKeyType).toBe('rsa');
    expect(loadPublicKey(pemBody(TEST_MERCHANT_PUBLIC_KEY_PEM)).asymmetricKeyType).toBe('rsa');
  });

  it('round-trips a notification and refuses it once tampered', () => {
    const content = buildSignString(NOTIFICATION, { excludeSignType: true });
    const signature = sign(content, TEST_MERCHANT_PRIVATE_KEY_PEM);
    const signed = { ...NOTIFICATION, sign: signature };
    expect(verify(buildSignString(signed, { excludeSignType: true }), signature, TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(true);

    const tampered = { ...signed, total_amount: '0.01' };
    expect(verify(buildSignString(tampered, { excludeSignType: true }), signature, TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(false);
    const added = { ...signed, extra: 'x' };
    expect(verify(buildSignString(added, { excludeSignType: true }), signature, TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(false);
    // sign_type is not covered for notifications, so changing it does not break the signature.
    expect(verify(buildSignString({ ...signed, sign_type: 'RSA' }, { excludeSignType: true }), signature, TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(true);
  });

  it('refuses a signature made with another key, and garbage without throwing', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const foreign = sign(EXPECTED_REQUEST_STRING, other.privateKey);
    expect(verify(EXPECTED_REQUEST_STRING, foreign, TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(false);
    expect(verify(EXPECTED_REQUEST_STRING, EXPECTED_REQUEST_SIGNATURE, other.publicKey)).toBe(false);
    expect(verify(EXPECTED_REQUEST_STRING, '', TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(false);
    expect(verify(EXPECTED_REQUEST_STRING, '!!not base64!!', TEST_MERCHANT_PUBLIC_KEY_PEM)).toBe(false);
    expect(verify(EXPECTED_REQUEST_STRING, EXPECTED_REQUEST_SIGNATURE, 'not a key')).toBe(false);
  });

  it('extracts the exact text of the response member that answers are signed over', () => {
    const member = '{"code":"10000","msg":"Success","qr_code":"http://x/scan/P1?a=1&b=\\"q\\"","nested":{"k":[1,{"z":"}"}]}}';
    const body = `{ "qrpay_trade_precreate_response" : ${member} , "sign":"abc"}`;
    expect(responseMemberName('qrpay.trade.precreate')).toBe('qrpay_trade_precreate_response');
    expect(extractJsonMember(body, 'qrpay_trade_precreate_response')).toBe(member);
    expect(extractJsonMember(body, 'sign')).toBe('"abc"');
    expect(extractJsonMember(body, 'missing')).toBeNull();
    expect(extractJsonMember('<html>500</html>', 'sign')).toBeNull();
    expect(extractJsonMember('[1,2]', 'sign')).toBeNull();
  });
});
