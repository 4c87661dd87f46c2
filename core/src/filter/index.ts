export { compileSql92, type Sql92Filter } from './sql92';
export { Sql92Error } from './sql92-error';
