/**
 * The type a JSON schema describes, computed by the compiler, and the check
 * that a wire type says the same as its schema: a field in one and not the
 * other, required in one and optional in the other, or of another type,
 * fails `tsc` where the pair is checked (each route's module, beside both).
 *
 * Design notes:
 * - Type-only: nothing here exists at run time, so the client's hot path
 *   (`vox say`, `vox hook`), which imports the schemas, loads nothing more.
 * - Hand-written rather than json-schema-to-ts's `FromSchema`: the wire
 *   schemas use a small subset (object, string, number, integer, boolean,
 *   enum, const, array, anyOf/oneOf), a dependency would reach the emitted
 *   .d.ts every workspace compiles against, and the interfaces stay the
 *   documented types readers and editors see (field comments do not survive
 *   a type computed from a schema).
 * - Keywords that only narrow a value (minLength, maximum, pattern) do not
 *   change the type and are not compared.
 */

/** The type of the values schema `S` accepts (for the keywords above; anything else is `unknown`). */
export type SchemaType<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { const: infer C }
    ? C
    : S extends { anyOf: readonly (infer A)[] }
      ? SchemaType<A>
      : S extends { oneOf: readonly (infer A)[] }
        ? SchemaType<A>
        : S extends { type: 'string' }
          ? string
          : S extends { type: 'number' | 'integer' }
            ? number
            : S extends { type: 'boolean' }
              ? boolean
              : S extends { type: 'null' }
                ? null
                : S extends { type: 'array'; items: infer I }
                  ? SchemaType<I>[]
                  : S extends { type: 'object'; properties: infer P }
                    ? ObjectType<P, S extends { required: readonly (infer R)[] } ? R : never>
                    : unknown;

type ObjectType<P, Required> = Flat<
  { -readonly [K in keyof P as K extends Required ? K : never]-?: SchemaType<P[K]> } & {
    -readonly [K in keyof P as K extends Required ? never : K]+?: SchemaType<P[K]>;
  }
>;

type Flat<T> = { [K in keyof T]: T[K] };

/** True when A and B are the same type (not merely assignable either way). */
export type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/**
 * `true` when wire type T and schema S agree; otherwise what differs: the
 * fields only one of them has, and the shared fields whose type or
 * requiredness differ.
 */
export type SchemaAgrees<T, S> =
  Same<Flat<T>, SchemaType<S>> extends true
    ? true
    : {
        onlyInType: Exclude<keyof T, keyof SchemaType<S>>;
        onlyInSchema: Exclude<keyof SchemaType<S>, keyof T>;
        differ: {
          [K in keyof T & keyof SchemaType<S>]: Same<Pick<T, K>, Pick<SchemaType<S>, K>> extends true ? never : K;
        }[keyof T & keyof SchemaType<S>];
      };

/** Compiles only when its argument is `true`: `type Checked = Agreed<SchemaAgrees<FooRequest, typeof fooRequestSchema>>`. */
export type Agreed<T extends true> = T;
