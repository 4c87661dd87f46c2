/** The test kit for Nest applications using mqkit. */
import 'reflect-metadata';

export { waitUntilConsuming } from './testing/wait-until-consuming';
