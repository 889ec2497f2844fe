/** `list` with `item` added (a box ticked) or taken out (unticked). */
export const toggled = <T>(list: T[], item: T, on: boolean) =>
  on ? [...list, item] : list.filter((each) => each !== item);
