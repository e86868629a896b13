// The bytes the signal parser looks at, named once for every module that scans raw output.
export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const HASH = 0x23;
export const AMP = 0x26;
export const APOS = 0x27;
export const SLASH = 0x2f;
export const SEMI = 0x3b;
export const LT = 0x3c;
export const EQ = 0x3d;
export const GT = 0x3e;
export const UPPER_L = 0x4c;
export const UPPER_O = 0x4f;
export const BACKTICK = 0x60;
export const LOWER_A = 0x61;
export const LOWER_X = 0x78;
export const LOWER_Z = 0x7a;
export const TILDE = 0x7e;

/** First non-blank bytes of a line that may be a signal (#), a fence (` ~) or LOOP_COMPLETE (L). */
export const SIGNIFICANT_FIRST_BYTES: readonly number[] = [HASH, BACKTICK, TILDE, UPPER_L];
