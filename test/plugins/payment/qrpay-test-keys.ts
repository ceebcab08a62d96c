/**
 * Test-only RSA-2048 key pair (generated once, committed on purpose): the merchant keys of the
 * qrpay tests and the key behind the signing known vectors. Never use it anywhere else.
 */
export const TEST_MERCHANT_PRIVATE_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCq/Vi7S2naQPAc
toSiRhMxPwWCn02DkSse98lnGxO+HJR2DGwhWzdFQAzzLGyZE6ulpvS8uOBYFUTF
sFXAitDY2pYqzx42TzdQycV+Gx4fLSPHB4YrJogEkqW9dKDk0io2Y/MhGZhzIa1v
6d1MWjv9oC3yfFVqhrQ/UYr6xoi4w5kZMILG+exfN5Mr8+sS0VbmIvwTUMcTohRw
cZGKpjL2RqRPlCBgVuAUOVWbmm82X1a9KuACrT6yJ5wlpNTOX5VfG9nPXtl0XzeV
WNRcZswRY41fXEoXUHl8dpYZpB6fqnr7unc/uuq2Uc5CqleyVrWAOFGl2vUQuDgd
kUZHotopAgMBAAECggEAFDcyOaiLmgBx8u8YRMg0pi6dg+k6JJsx5i4k+2Ht5lzi
J4fF8/ahFPii31AqAbob4dCYoERaT8ep8xZrOQGgefbz6JlGqOSaNVy5kvR5TfXM
BFCtKeZbD/FXk4vZptv7HiWYfdoVFk2NwAy9+3QyogSBUiklfxvwbQkCva3hxbg2
srh48mJhKI1UwUeRQ9VfZTpl2czfLhweY29pAcVewJxDVLueGm/Kr5E/0Z6NDCRs
diAZz+hB/D/xeFFG6r4jzQ1Xr/mO8+esmZQQ1n58cId5Y0CmTD9s2O7H28UJ8DHh
O+mp4NC1cZvacz7jZdv+w5zuRjpWnAXhaHp9yaZcFQKBgQDk0Ey/AG2EsCerlB/G
mvOfJZPRC/A4V/8njL8/q90TCON9Y1WGPxxmnWSEsbsMPWg/CFSL+0i4aFxw0pHm
r27+W+NA46Lu4ReVLoYzJmszEtHWwEhePrc+Rtp8HTSrzNsX69TbIqhWukf20FhH
4sxmZLKb3aUFxaIQVYv+Ws2fBQKBgQC/Tj6o5O0LdseBJlfWWV2qL6EMWErXxJJy
ZJU41BOajgrdFEYbhRHU4ai8kMCUb1Kb9FqhLSWBPb6oDJE5mXUcWsNqAJDTn0b9
bQ21H6Miz5Ky9GsNuTQV1oJLzu0w2hnzol2IzXPFuT0kXjaEtqxT3JVdysR9b0xk
cmjnR39P1QKBgCwPoHe3UV+XvEvh/ix0ci1XQxuiPOPcrhmjlMBiC/Q6ZfQjSLjN
Nl7cOBsFTouQ154rsHw0K1C3Z/Wh1s6hQbJhZ2V7cEint67Wgqke4M249gdwh37+
fLLVWgVEanwauqXkl9yK0/e/b1Qr0pQlLE8bXPl+uORfplGW55pXSfkxAoGBALay
huzNFASqvwT8FU7DscviCK+9clx1glZ08H2BK+eiV4Wi4wFNKCZiC79pjkEzv3To
+9SJRRQUX4wl1FtpzonxtEX7nFQ9/JHyH/El8apBChyVh9dnU/K3FWBIkgThhX9D
RIhtjW765QViZDaCLjk4o/0atGQGcrJLARw/D7qxAoGBALa3FK8oIK/c9yajV5T+
ZNEaNxO6cji5nQNFGAp1QoktGo+S+3Ds4Y2Sq9xJ9r8o226mmkqz+bhZ902pgfYt
dNWWnSf0LEimU/MwqzuhRGE7svoX8H5w4iC5ESZ23ny4rDy5RyHrrl3JM/V3kI1z
DH0cd+K/YENYaJv8aGGa5nlm
-----END PRIVATE KEY-----
`;

export const TEST_MERCHANT_PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAqv1Yu0tp2kDwHLaEokYT
MT8Fgp9Ng5ErHvfJZxsTvhyUdgxsIVs3RUAM8yxsmROrpab0vLjgWBVExbBVwIrQ
2NqWKs8eNk83UMnFfhseHy0jxweGKyaIBJKlvXSg5NIqNmPzIRmYcyGtb+ndTFo7
/aAt8nxVaoa0P1GK+saIuMOZGTCCxvnsXzeTK/PrEtFW5iL8E1DHE6IUcHGRiqYy
9kakT5QgYFbgFDlVm5pvNl9WvSrgAq0+siecJaTUzl+VXxvZz17ZdF83lVjUXGbM
EWONX1xKF1B5fHaWGaQen6p6+7p3P7rqtlHOQqpXsla1gDhRpdr1ELg4HZFGR6La
KQIDAQAB
-----END PUBLIC KEY-----
`;

/**
 * The known request vector: both the plugin's signing and the sandbox gateway's own must
 * reproduce it (they are written separately, so each is checked against openssl, not the other).
 */
const BIZ = '{"out_trade_no":"P202401010001","subject":"云服务器 1核2G&续费=1个月","total_amount":"88.80"}';

export const REQUEST = {
  version: '1.0',
  timestamp: '2024-01-02 03:04:05',
  sign_type: 'RSA2',
  method: 'qrpay.trade.precreate',
  notify_url: '',
  format: undefined,
  charset: 'utf-8',
  biz_content: BIZ,
  app_id: '2021000000000001',
  sign: 'not-signed',
};

export const EXPECTED_REQUEST_STRING =
  'app_id=2021000000000001' +
  `&biz_content=${BIZ}` +
  '&charset=utf-8&method=qrpay.trade.precreate&sign_type=RSA2&timestamp=2024-01-02 03:04:05&version=1.0';

/** `openssl dgst -sha256 -sign <fixture private key>` over EXPECTED_REQUEST_STRING, base64. */
export const EXPECTED_REQUEST_SIGNATURE =
  'k7uDOr2dj9o7cKKvle23lHkDB1GJdQ1AeDH3KlR9AbIKChewEMpmsyRua0hr5I2l/dAe2nfhOA392sq4Mo9CiHguDIU+Tg7PDcq30iE9zj3Jgxdc88Qd6r/e5T2ErGQ8Nk4FY70W1dOcv7zVzgQ2cpkno5EmcW54OvDzwx6Xz37UjzNYhH2nefab00iRUZhoZj2YDEETIS0uOtnu4oT+yW9pcCG4M/3Mx7eq5yQ3SAYruU+M5dM+fr6z+KIx3jE5YTZpVlog6GlEsD5IHL5rFY++VGR8gCXbMV3U5cWUHrsbrDtuedwbu2qhqcFhd+2kS/o1SY05DvnCuf1gF4FLVg==';
