import { projectConfig } from '../../vitest.shared.mts';

export default projectConfig(import.meta.dirname);
