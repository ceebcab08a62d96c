import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { answerMember, notificationSignContent, publicKeyFromText, requestSignContent, rsa2Sign, rsa2Verify } from '../../sandbox/qrpay/signing.js';
import { EXPECTED_REQUEST_SIGNATURE, EXPECTED_REQUEST_STRING, REQUEST, TEST_MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT_PUBLIC_KEY_PEM } from '../plugins/payment/qrpay-test-keys.js';

const merchantPrivate = createPrivateKey(TEST_MERCHANT_PRIVATE_KEY_PEM);
const merchantPublic = createPublicKey(TEST_MERCHANT_PUBLIC_KEY_PEM);

describe('qrpay sandbox gateway signing (its own code, checked against openssl)', () => {
  it('builds the request content of the known vector: byte order, empty values dropped, sign left out, sign_type kept', () => {
    expect(requestSignContent(REQUEST)).toBe(EXPECTED_REQUEST_STRING);
  });

  it('signs and verifies the known vector exactly as openssl does', () => {
    expect(rsa2Sign(EXPECTED_REQUEST_STRING, merchantPrivate)).toBe(EXPECTED_REQUEST_SIGNATURE);
    expect(rsa2Verify(EXPECTED_REQUEST_STRING, EXPECTED_REQUEST_SIGNATURE, merchantPublic)).toBe(true);
  });

  it('leaves sign_type out of notification content only', () => {
    const fields = { trade_status: 'TRADE_SUCCESS', sign_type: 'RSA2', sign: 'x', app_id: '1', empty: '' };
    expect(notificationSignContent(fields)).toBe('app_id=1&trade_status=TRADE_SUCCESS');
    expect(requestSignContent(fields)).toBe('app_id=1&sign_type=RSA2&trade_status=TRADE_SUCCESS');
  });

  it('sorts keys by UTF-8 byte value, not by UTF-16 code unit', () => {
    const params = { '\u{1F600}': '6', '\uFF21': '5', ab: '9', a_b: '8', a: '4', _x: '3', Z1: '2', B: '1' };
    expect(requestSignContent(params)).toBe('B=1&Z1=2&_x=3&a=4&a_b=8&ab=9&\uFF21=5&\u{1F600}=6');
  });

  it('refuses another key, a changed content and malformed signatures without throwing', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(rsa2Verify(EXPECTED_REQUEST_STRING, rsa2Sign(EXPECTED_REQUEST_STRING, other.privateKey), merchantPublic)).toBe(false);
    expect(rsa2Verify(`${EXPECTED_REQUEST_STRING}&x=1`, EXPECTED_REQUEST_SIGNATURE, merchantPublic)).toBe(false);
    expect(rsa2Verify(EXPECTED_REQUEST_STRING, '', merchantPublic)).toBe(false);
    expect(rsa2Verify(EXPECTED_REQUEST_STRING, '!!not base64!!', merchantPublic)).toBe(false);
  });

  it('reads the registered merchant key as PEM or as a bare base64 body, and names answer members', () => {
    const body = TEST_MERCHANT_PUBLIC_KEY_PEM.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
    expect(rsa2Verify(EXPECTED_REQUEST_STRING, EXPECTED_REQUEST_SIGNATURE, publicKeyFromText(body))).toBe(true);
    expect(rsa2Verify(EXPECTED_REQUEST_STRING, EXPECTED_REQUEST_SIGNATURE, publicKeyFromText(TEST_MERCHANT_PUBLIC_KEY_PEM))).toBe(true);
    expect(answerMember('qrpay.trade.precreate')).toBe('qrpay_trade_precreate_response');
  });
});
