/** An RGB colour, each channel 0..255. */
export type Rgb = readonly [number, number, number];

/**
 * What every sandbox console shows: four solid quadrants whose colours nothing else on a page
 * would draw by chance, so a test reading a few pixels knows it sees this picture. Every colour
 * has a channel above 0x7f: the pixel bytes never spell a printable password.
 */
export const CONSOLE_PICTURE = {
  topLeft: [0xd7, 0x26, 0x2e],
  topRight: [0x2e, 0xa0, 0x43],
  bottomLeft: [0x1f, 0x5f, 0xd1],
  bottomRight: [0xf2, 0xc0, 0x11],
} as const satisfies Record<string, Rgb>;

export const DEFAULT_CONSOLE_SIZE = { width: 320, height: 240 } as const;

export function consolePictureColour(x: number, y: number, width: number, height: number): Rgb {
  const left = x < width / 2;
  if (y < height / 2) return left ? CONSOLE_PICTURE.topLeft : CONSOLE_PICTURE.topRight;
  return left ? CONSOLE_PICTURE.bottomLeft : CONSOLE_PICTURE.bottomRight;
}
