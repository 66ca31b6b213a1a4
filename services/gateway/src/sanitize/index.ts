export { SANITIZERS } from './sanitizers.js';
export type { Sanitizer } from './types.js';
export {
  parseParameterSpecs,
  checkAndSanitizeRequiredParameters,
  type ParameterSpec,
} from './required-parameters.js';
export { MissingParametersError, ParameterSpecError } from '../errors.js';
