// Reads a QR code the way a phone does, from its pixels (jsQR), so a test checks what the picture says, not how it
// was made. The image comes as RGBA pixels (the caller decodes the PNG).
import jsQR from 'jsqr';

export function readQrCode(rgba: Uint8ClampedArray, width: number, height: number): string | undefined {
  return jsQR(rgba, width, height)?.data;
}
