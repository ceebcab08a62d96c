import QRCode from 'qrcode';

/**
 * Renders a certify URL as an SVG QR code. Not used on the wire: the platform stores the SVG
 * as an asset and serves its URL (images never travel as inline strings in API answers).
 */
export async function renderQrSvg(url: string): Promise<string> {
  return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
