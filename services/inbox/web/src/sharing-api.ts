/** `GET …/shares`: a share link, without its token. */
export interface ShareView {
  id: string;
  createdAt: string;
}

/** `POST …/shares`: the token and the link, shown this once. */
export interface CreatedShare extends ShareView {
  token: string;
  url: string;
}

/** One row of `GET /api/admin/endpoints`. */
export interface ManagedEndpointView {
  id: string;
  name: string;
  resource: string;
  receiveUrl: string;
  forward: Array<{ url: string; enabled: boolean }>;
  requestCount: number;
  lastCaptureAt: string | null;
}
