/** The contract between UI and core. */
export * from './contract';
export * from './api';
export * from './contract-error';
export * from './doctor';
export * from './servers';
export * from './wire';
export * from './instances';
export * from './tools';
export * from './grants';
export * from './server-detail';
export * from './reply';
export * from './launch-error';
