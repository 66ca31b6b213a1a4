/**
 * The root of every error Portcullis raises on purpose. Subclasses carry a stable `code`; callers branch on
 * the class or the code, never on the message text.
 */
export abstract class PortcullisError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One or more environment variables hold values that cannot be used; `problems` lists every one. */
export class SettingsError extends PortcullisError {
  readonly code = 'SETTINGS_INVALID';

  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
}

/** A JSON body nested deeper than the server allows: 400, whatever the service's own mapping. */
export class BodyTooDeepError extends PortcullisError {
  readonly code = 'BODY_TOO_DEEP';
  readonly statusCode = 400;

  constructor(readonly maxDepth: number) {
    super(`body is nested deeper than ${maxDepth} levels`);
  }
}
