/**
 * The parameter type of a constructor that applications do not call: mqkit creates these objects itself (each
 * class says which factory does). No value has this type, so `new` does not compile, while the class stays a
 * value that dependency injection can use as its token (tsyringe and Nest take only classes with a public
 * constructor).
 */
export interface CreatedByMqkit {
  /** Of type `never`: nothing can be assigned to it, so no object is a CreatedByMqkit. */
  readonly createdByMqkit: never;
}
