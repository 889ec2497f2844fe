// Reads a QR code the way a phone does, from its pixels (jsQR), so a test checks what the picture says, not how it
// was made. The image comes as RGBA pixels (the caller decodes the PNG).
import jsQRModule from 'jsqr';

// jsQR's types describe an ES default export; Node hands over its CommonJS module.exports, the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

export function readQrCode(rgba: Uint8ClampedArray, width: number, height: number): string | undefined {
  return jsQR(rgba, width, height)?.data;
}
