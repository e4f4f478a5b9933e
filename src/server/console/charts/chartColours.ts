/**
 * The series and parts colours, in order: Okabe and Ito's palette, told apart with the common
 * colour-vision deficiencies. The ninth takes the first again.
 */
const COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'] as const;

/** The colour of the `index`th series or part. */
export function chartColour(index: number): string {
  return COLOURS[index % COLOURS.length];
}
