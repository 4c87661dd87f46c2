export { readOffsetsFile, writeOffsetsFile, type OffsetMap } from './offsets-file';
