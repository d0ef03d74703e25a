// The server's JSON API, as the page's modules ask it: an answer, or an
// Error with the server's own words.

/** The JSON at `url`; throws the server's `error` when it says no. */
export async function getJson(url) {
  const reply = await fetch(url);
  const body = await reply.json();
  if (!reply.ok) throw new Error(body.error || reply.statusText);
  return body;
}
