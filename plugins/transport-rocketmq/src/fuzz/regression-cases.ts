import type { FuzzTarget } from './fuzz-corpus';

/** An input that once broke the rule "decode, or throw a ProtocolError"; replayed by regression-cases.spec.ts. */
export interface RegressionCase {
  readonly target: FuzzTarget;
  /** The exact input, base64 (as `npm run fuzz` prints it). */
  readonly input: string;
  /** Where it came from and what it broke. */
  readonly found: string;
}

/*
 * How to add one: `npm run fuzz` prints each failure as JSON with target and base64 input; paste it here with the
 * seed and index, fix the decoder, and keep the case forever. Inputs are stored, not seeds, so they keep their
 * meaning when the corpus or the mutators change.
 *
 * No input has yet broken the shipped decoders (seeds 20251129 ×100,000 and 1, 2 ×1,000,000). To check that the
 * fuzzer would notice, each guard below was removed in turn from a scratch build and the fuzzer run with the spec
 * seed; the first inputs it found are kept here, so the guards cannot be dropped silently.
 */
export const REGRESSION_CASES: readonly RegressionCase[] = [
  {
    target: 'record',
    found: 'seed 20251129 index 3961; RangeError from readInt8 when the body-length bounds check was removed',
    input:
      'AAAAydqjIKcBsHD5AAAAAQAAAAAAAAAAAAAAZAAAAAAAABAAAAAAMAAAAYvP5WgAAAAAAAAAAAAAAP//CgAAAQAAAAEAAAGLz+VoZAAAAAAAAAAAAAD//38AAAEAACqfAAAAAAAAAAAAAAAA////DHsib3JkZXIiOjQyfQlUb3BpY1Rlc3QAQVRBR1MBVGFnQQJLRVlTAWsxIGsyAlVOSVFfS0VZATdGMDAwMDAxMDAwMTAwMDAwMDAwMDAwMAJXQUlUAXRydWUC',
  },
  {
    target: 'frame',
    found:
      'seed 20251129 index 2700; RangeError inside a pull response body when the body-length bounds check was removed',
    input:
      'AAAD8QAAANN7ImNvZGUiOjAsImV4dEZpZWxkcyI6eyJuZXh0QmVnaW5PZmZzZXQiOiIxMDMiLCJtaW5PZmZzZXQiOiIwIiwibWF4T2Zmc2V0IjoiMTAzIiwic3VnZ2VzdFdoaWNoQnJva2VySWQiOiIwIn0sImZsYWciOjEsImxhbmd1YWdlIjoiSkFWQSIsIm9wYXF1ZSI6NywicmVtYXJrIjoiRk9VTkQiLCJzZXJpYWxpemVUeXBlQ3VycmVudFJQQyI6IkpTT04iLCJ2ZXJzaW9uIjo0Nzl9AAAAsdqjIKcBsHD5AAAAAQAAAAAAAAAAAAAAZAAAAAAAABAAAAAAAAAAAYvP5WgACgAABQAAw1AAAAGLz+VoZH8AAAEAACqfAAAAAAAAAAAAAAAAgAAADHsib3JkZXIiOjQyfQlUb3BpY1Rlc3QAQVRBR1MBVGFnQQJLRVlTAWsxIGsyAlVOSVFfS0VZATdGMDAwMDAxMDAwMTAwMDAwMDAwMDAwMAJXQUlUAXRydWUCAAAAZNqjIKcAAAAAAAAAAQAAAAAAAAAAAAAAZAAAAAAAABAAAAAAAAAAAYvP5WgACgAABQAAw1AAAAGLz+VoZH8AAAEAACqfAAAAAAAAAAAAAAAAAAAAAAlUb3BpY1Rlc3QAAAAAATzaoyCrAbBw+QAAAAEAAAAAAAAAAAAAAGQAAAAAAAAQAAAAAAAAAAGLz+VoAAoAAAUAAMNQAAABi8/laGR/AAABAAAqnwAAAAMAAAAAAAAAAAAAAAx7Im9yZGVyIjo0Mn0AkyVSRVRSWSVnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZwBBVEFHUwFUYWdBAktFWVMBazEgazICVU5JUV9LRVkBN0YwMDAwMDEwMDAxMDAwMDAwMDAwMDAwAldBSVQBdHJ1ZQIAAADJ2qMgpwGwcPkAAAABAAAAAAAAAAAAAABkAAAAAAAAEAAAAAAwAAABi8/laAAgAQ24AAAAAAAAAAAAAAAFAACcQAAAAYvP5WhkAAAAAAAAAAAAAAAAAAAAAQAAKp8AAAAAAAAAAAAAAAAAAAAMeyJvcmRlciI6NDJ9CVRvcGljVGVzdABBVEFHUwFUYWdBAktFWVMBazEgazICVU5JUV9LRVkBN0YwMDAwMDEwMDAxMDAwMDAwMDAwMDAwAldBSVQBdHJ1ZQI=',
  },
  {
    target: 'batch',
    found: 'seed 20251129 index 99098; RangeError from readInt16BE when the batch entry body-length check was removed',
    input: 'AAAAIwAAAAAAAAAAAAAAAwAAAAN0d28ACldBSVQBdHJ1ZQIAAAAWAAAAAAAAAAAAAAAAAAAAewAA',
  },
  {
    target: 'record',
    found:
      'seed 20251129 index 477; zlib "invalid distance too far back" escaped untyped when inflate errors were not wrapped',
    input:
      'AAAAvdqjIKcJ9GmaAAAAAQAAAAAAAAAAAAAAZAAAAAAAABAAAAAAAQAAAYvP5WgACgAABQAAw1AAAAGLz+VoZH8AAAEAACqfAAAAAAAAAAAAAAAAAAAAGHheM9GrUCgoyk8pTf4tUjAZmRwAtZ9Z2QlUb3BpY1Rlc3QAQVRBR1MBVGFnQQJLRVlTAWsxIGsyAlVOSVFfS0VZATdGMDAwMDAxMDAwMTAwMDAwMDAwMDAwMAJXQUlUAXRydWUC',
  },
];
