/** The policy model: schema, defaults, validation, typed isolation errors. */
export * from './policy-schema';
export * from './defaults';
export * from './validate';
export * from './config-migrations';
export * from './policy-edits';
export * from './guards';
