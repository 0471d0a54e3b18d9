import { describe, expect, it } from 'vitest';
import { countSegments, encodingOf } from './segments.js';

describe('countSegments', () => {
  it('fits 160 GSM-7 characters in one segment and splits longer texts in 153s', () => {
    expect(countSegments('a'.repeat(160))).toBe(1);
    expect(countSegments('a'.repeat(161))).toBe(2);
    expect(countSegments('a'.repeat(306))).toBe(2);
    expect(countSegments('a'.repeat(307))).toBe(3);
  });

  it('counts GSM-7 extension characters as two septets and never splits one', () => {
    expect(encodingOf('€[]')).toBe('GSM-7');
    expect(countSegments('€'.repeat(80))).toBe(1);
    expect(countSegments('€'.repeat(81))).toBe(2);
    // 152 septets, then a 2-septet € that does not fit in the 153rd: it opens segment 2.
    expect(countSegments(`${'a'.repeat(152)}€${'a'.repeat(10)}`)).toBe(2);
    expect(countSegments(`${'a'.repeat(152)}€${'a'.repeat(152)}`)).toBe(3);
  });

  it('switches the whole text to UCS-2 for one non-GSM character: 70, then 67 per segment', () => {
    expect(encodingOf('naïve')).toBe('UCS-2');
    expect(countSegments(`✓${'a'.repeat(69)}`)).toBe(1);
    expect(countSegments(`✓${'a'.repeat(70)}`)).toBe(2);
    expect(countSegments(`✓${'a'.repeat(133)}`)).toBe(2);
    expect(countSegments(`✓${'a'.repeat(134)}`)).toBe(3);
  });

  it('counts an emoji as two UTF-16 units and never splits it', () => {
    expect(countSegments('😀'.repeat(35))).toBe(1);
    expect(countSegments('😀'.repeat(36))).toBe(2);
    // 66 units then a 2-unit emoji: it opens segment 2.
    expect(countSegments(`${'a'.repeat(66)}😀${'a'.repeat(10)}`)).toBe(2);
    expect(countSegments(`${'a'.repeat(66)}😀${'a'.repeat(66)}`)).toBe(3);
  });

  it('keeps accented letters of the GSM alphabet in GSM-7', () => {
    expect(encodingOf('é à ü Ñ')).toBe('GSM-7');
    expect(encodingOf('á')).toBe('UCS-2');
  });
});
