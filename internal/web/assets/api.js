// The REST API (docs/api.md), as the page uses it. Errors are the
// server's own: an ApiError carries its status code, reason and message.

export class ApiError extends Error {
  constructor(httpStatus, body) {
    const msg = (body && body.message) || `HTTP ${httpStatus}`;
    super(msg);
    this.httpStatus = httpStatus;
    this.code = body && body.code;
    const info = ((body && body.details) || []).find((d) => d.reason);
    this.reason = info ? info.reason : "";
    this.metadata = (info && info.metadata) || {};
  }
}

// A network failure (no answer at all), as opposed to an ApiError.
export class NetworkError extends Error {}

async function send(method, path, body, token, signal) {
  const headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  // The side's token goes in a header only: never in a URL, never logged.
  if (token) headers.authorization = `Bearer ${token}`;
  let resp;
  try {
    resp = await fetch(path, {
      method, headers, signal, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if (e.name === "AbortError" || e.name === "TimeoutError") throw e;
    throw new NetworkError(e.message);
  }
  return resp;
}

// callTimeout bounds a call that is not a stream: past it, the request
// most likely never left the browser, which holds requests back while six
// connections to the server are open (HTTP/1.1; each watch and analysis
// holds one).
const callTimeout = 15000;

async function call(method, path, body, token) {
  let resp;
  try {
    resp = await send(method, path, body, token, AbortSignal.timeout(callTimeout));
  } catch (e) {
    if (e.name === "TimeoutError" || e.name === "AbortError") {
      throw new NetworkError(`no answer within ${callTimeout / 1000} s; if this site is open in many tabs, ` +
        "close some: a browser keeps at most six connections to one server, and each open game or analysis holds one");
    }
    throw e;
  }
  let json = null;
  try { json = await resp.json(); } catch { /* an empty or non-JSON body */ }
  if (!resp.ok) throw new ApiError(resp.status, json);
  return json;
}

// A request ID for MakeMove's retry safety net: a version 4 UUID from
// getRandomValues (randomUUID needs a secure context; plain HTTP is not).
export function requestId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const api = {
  createGame: (game) => call("POST", "/v1/games", game),
  getGame: (name, view) => call("GET", `/v1/${name}${view ? `?view=${view}` : ""}`),
  legalMoves: (position, variant) => call("POST", "/v1/rules:listLegalMoves", { position: { text: position.text }, variant }),
  makeMove: (name, token, body) => call("POST", `/v1/${name}:move`, body, token),
  resign: (name, token) => call("POST", `/v1/${name}:resign`, {}, token),
  offerDraw: (name, token) => call("POST", `/v1/${name}:offerDraw`, {}, token),
  answerDraw: (name, token, accept) => call("POST", `/v1/${name}:answerDrawOffer`, { accept }, token),
  // probe: TablebaseService.ProbePosition for a position text, under the
  // variant's win condition and no-progress limit.
  probe: (text, variant) => {
    const q = new URLSearchParams({ position: text });
    if (variant && variant.win_condition) q.set("variant.win_condition", variant.win_condition);
    if (variant && variant.no_progress_limit !== undefined) q.set("variant.no_progress_limit", String(variant.no_progress_limit));
    return call("GET", `/v1/tablebase:probe?${q}`);
  },
};

// stream reads an NDJSON answer (WatchGame, AnalyzePosition), calling
// onItem with each {"result": …} object's result in order. It throws the
// ApiError of a refused request or of a final {"error": …} line, a
// NetworkError if the connection drops, and returns when the server ends
// the stream cleanly.
export async function stream(method, path, body, signal, onItem) {
  const resp = await send(method, path, body, undefined, signal);
  if (!resp.ok) {
    let json = null;
    try { json = await resp.json(); } catch { /* not JSON */ }
    throw new ApiError(resp.status, json);
  }
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    await readLines(reader, onItem);
  } catch (e) {
    // Stop the download too: the caller gives up on this stream.
    reader.cancel().catch(() => {});
    throw e;
  }
}

async function readLines(reader, onItem) {
  let buf = "";
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw new NetworkError(e.message);
    }
    if (chunk.done) break;
    buf += chunk.value;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const item = JSON.parse(line);
      if (item.error) throw new ApiError(500, item.error);
      if (item.result) onItem(item.result);
    }
  }
  if (buf.trim()) throw new NetworkError("the stream ended inside a line");
}
