export { fileOffsetStore, type FileOffsetStoreOptions } from './file-offset-store.provider';
export { FileOffsetStore } from './file-offset-store';
