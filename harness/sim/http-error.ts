/** An error a responder throws to answer with an HTTP status (422: the simulator cannot answer this request). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
