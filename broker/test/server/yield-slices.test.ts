// The slicing of long work (issue 29): slicesOf bounds a slice by count and by weight, and reads
// a count bound that may change between slices; SliceSizer sizes the next slice from the last one's cost.
import { SliceSizer, slicesOf } from '../../src/server/yield-slices';

describe('slicesOf', () => {
  it('cuts by count and by weight, an item heavier than the bound alone, in order', () => {
    const items = [1, 1, 1, 1, 1, 900, 200, 1, 5000, 1];
    expect([...slicesOf(items, 3, (w) => w, 1000)]).toEqual([[1, 1, 1], [1, 1, 900], [200, 1], [5000], [1]]);
    expect([...slicesOf([], 3)]).toEqual([]);
  });

  it('follows a count bound that changes between slices (the sizer measured the last one)', () => {
    let bound = 1;
    const slices = slicesOf([1, 2, 3, 4, 5, 6], () => bound);
    expect(slices.next().value).toEqual([1]);
    bound = 2;
    expect(slices.next().value).toEqual([2, 3]);
    bound = 3;
    expect(slices.next().value).toEqual([4, 5, 6]);
    expect(slices.next().done).toBe(true);
  });
});

describe('SliceSizer', () => {
  it('sizes the next slice to take the target at the last cost per item, within 1..max', () => {
    const sizer = new SliceSizer(16, 64, 5);
    expect(sizer.next).toBe(16);
    sizer.measured(16, 2); // 0.125 ms an item: 40 fit in 5 ms
    expect(sizer.next).toBe(40);
    sizer.measured(40, 1); // cheap: capped at 64
    expect(sizer.next).toBe(64);
    sizer.measured(64, 40); // 0.625 ms an item: 8
    expect(sizer.next).toBe(8);
    sizer.measured(8, 500); // dearer than the target alone: one at a time
    expect(sizer.next).toBe(1);
    sizer.measured(1, 0); // no measurable time: as fast as it gets
    expect(sizer.next).toBe(64);
  });
});
