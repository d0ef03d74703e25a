//! A client of the chat-completions API (`POST {base}/chat/completions`,
//! streaming off), which OpenAI, vLLM, llama.cpp's server and Ollama speak.
//!
//! Bounded everywhere: a timeout on each request (connection, answer and
//! body), a cap on the body read (1 MiB), retries with exponential backoff
//! on what may pass (a refused or lost connection, a timeout, 429, a 5xx,
//! an answer that is not the API's JSON), `Retry-After` honoured up to a
//! minute; any other status ends the run at once (a wrong key or model
//! will not mend itself). The API key goes in the `Authorization` header
//! and nowhere else: every text this client returns or reports has it
//! blanked.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::{Request, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::{Deserialize, Serialize};

use crate::model::Model;
pub use crate::model::{ChatError, Message, Reply};

/// The most of an answer's body read.
const MAX_BODY: usize = 1 << 20;

/// The longest wait between two tries, whatever the server asks.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// Where the model is and how to ask it.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The API's base URL, such as `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// The model's name, as the server knows it.
    pub model: String,
    /// The API key, if the server wants one.
    pub key: Option<String>,
    /// The longest one request may take.
    pub timeout: Duration,
    /// Tries of one request after the first, on failures that may pass.
    pub retries: u32,
    /// The first wait before a retry; each retry doubles it.
    pub backoff: Duration,
    /// The most tokens an answer may have (`max_tokens`).
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
}

/// The request's body.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: &'a [Message],
    max_tokens: u32,
    temperature: f64,
    stream: bool,
}

/// The parts of the API's answer read here.
#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// One try's failure.
enum Failure {
    /// Worth another try, after at least the wait given, if any.
    Passing(String, Option<Duration>),
    /// Not worth another.
    Final(ChatError),
}

/// A client of one model, shared by the games that ask it at once.
pub struct Client {
    settings: Settings,
    endpoint: Uri,
    http: HttpClient<HttpsConnector<HttpConnector>, Full<Bytes>>,
    runtime: tokio::runtime::Runtime,
}

impl Client {
    /// A client of the model `settings` names.
    pub fn new(settings: Settings) -> Result<Client, ChatError> {
        let bad = |why: &str| ChatError::BadUrl {
            url: settings.base_url.clone(),
            why: why.to_string(),
        };
        if !["http://", "https://"]
            .iter()
            .any(|scheme| settings.base_url.starts_with(scheme))
        {
            return Err(bad("expected an http:// or https:// URL"));
        }
        let endpoint = format!(
            "{}/chat/completions",
            settings.base_url.trim_end_matches('/')
        );
        let endpoint: Uri = endpoint
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| bad(&e.to_string()))?;
        if endpoint.host().is_none_or(str::is_empty) {
            return Err(bad("no host"));
        }
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| bad(&format!("starting the client: {e}")))?;
        let http = {
            let _entered = runtime.enter();
            HttpClient::builder(TokioExecutor::new()).build(connector)
        };
        Ok(Client {
            settings,
            endpoint,
            http,
            runtime,
        })
    }

    /// The model's answer to `messages`, trying again on what may pass.
    /// Blocks the calling thread; many threads may ask at once.
    pub fn ask(&self, messages: &[Message]) -> Result<Reply, ChatError> {
        let start = Instant::now();
        let mut wait = self.settings.backoff;
        let mut tries = 0;
        loop {
            tries += 1;
            let failure = match self.runtime.block_on(self.try_once(messages)) {
                Ok(mut reply) => {
                    reply.requests = tries;
                    reply.elapsed = start.elapsed();
                    return Ok(reply);
                }
                Err(failure) => failure,
            };
            match failure {
                Failure::Final(e) => return Err(e),
                Failure::Passing(last, asked) => {
                    if tries > self.settings.retries {
                        return Err(ChatError::GaveUp {
                            tries,
                            last: self.blank(&last),
                        });
                    }
                    std::thread::sleep(asked.unwrap_or(wait).min(MAX_WAIT));
                    wait = (wait * 2).min(MAX_WAIT);
                }
            }
        }
    }

    /// One request, within the timeout.
    async fn try_once(&self, messages: &[Message]) -> Result<Reply, Failure> {
        let body = serde_json::to_vec(&Body {
            model: &self.settings.model,
            messages,
            max_tokens: self.settings.max_tokens,
            temperature: self.settings.temperature,
            stream: false,
        })
        .expect("a request serialises");
        let mut request = Request::post(self.endpoint.clone())
            .header("content-type", "application/json")
            .header(
                "user-agent",
                concat!("connect4-arena/", env!("CARGO_PKG_VERSION")),
            );
        if let Some(key) = &self.settings.key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .expect("the request's parts are valid");
        let timeout = self.settings.timeout;
        let answered = tokio::time::timeout(timeout, async {
            let response = self.http.request(request).await.map_err(|e| {
                Failure::Passing(format!("the request failed: {}", error_chain(&e)), None)
            })?;
            let status = response.status();
            let retry_after = retry_after(response.headers());
            let body = Limited::new(response.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| Failure::Passing(format!("reading the answer: {e}"), None))?
                .to_bytes();
            Ok::<_, Failure>((status, retry_after, body))
        })
        .await
        .map_err(|_| {
            Failure::Passing(
                format!("no answer within {} s (--timeout)", timeout.as_secs_f64()),
                None,
            )
        })??;
        self.read(answered)
    }

    /// The reply in a response, or why there is none.
    fn read(
        &self,
        (status, retry_after, body): (StatusCode, Option<Duration>, Bytes),
    ) -> Result<Reply, Failure> {
        let excerpt = || self.blank(&excerpt(&body));
        if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            return Err(Failure::Passing(
                format!("HTTP {}: {}", status.as_u16(), excerpt()),
                retry_after,
            ));
        }
        if !status.is_success() {
            return Err(Failure::Final(ChatError::Refused {
                status: status.as_u16(),
                body: excerpt(),
            }));
        }
        let completion: Completion = serde_json::from_slice(&body).map_err(|e| {
            Failure::Passing(
                format!("the answer is not the API's JSON ({e}): {}", excerpt()),
                None,
            )
        })?;
        let Some(choice) = completion.choices.into_iter().next() else {
            return Err(Failure::Passing("the answer has no choices".into(), None));
        };
        let usage = completion.usage.unwrap_or(Usage {
            prompt_tokens: 0,
            completion_tokens: 0,
        });
        Ok(Reply {
            text: self.blank(&choice.message.content.unwrap_or_default()),
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            requests: 1,
            elapsed: Duration::ZERO,
        })
    }

    /// `text` with the API key blanked, should a server echo it.
    fn blank(&self, text: &str) -> String {
        match &self.settings.key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[the API key]"),
            _ => text.to_string(),
        }
    }
}

/// The wait a `Retry-After` of seconds asks for.
fn retry_after(headers: &hyper::HeaderMap) -> Option<Duration> {
    let seconds: f64 = headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(60.0)))
}

/// The start of a body, as text, for a message.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

impl Model for Client {
    fn name(&self) -> &str {
        &self.settings.model
    }

    fn ask(&self, messages: &[Message]) -> Result<Reply, ChatError> {
        Client::ask(self, messages)
    }
}

/// An error and its causes, in one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> Settings {
        Settings {
            base_url: url.into(),
            model: "m".into(),
            key: Some("sk-secret".into()),
            timeout: Duration::from_secs(1),
            retries: 0,
            backoff: Duration::from_millis(1),
            max_tokens: 10,
            temperature: 0.0,
        }
    }

    #[test]
    fn a_url_the_client_cannot_reach_is_refused_with_what_is_wrong() {
        for (url, why) in [
            ("ftp://host/v1", "expected an http:// or https:// URL"),
            ("localhost:8000", "expected an http:// or https:// URL"),
            ("http://", ""),
        ] {
            let e = Client::new(settings(url)).err().expect(url);
            let text = e.to_string();
            assert!(text.starts_with(&format!("--base-url {url:?}: ")), "{text}");
            assert!(text.contains(why), "{text}");
        }
    }

    #[test]
    fn the_key_is_blanked_in_every_text() {
        let client = Client::new(settings("http://127.0.0.1:9/v1")).unwrap();
        assert_eq!(client.blank("key sk-secret!"), "key [the API key]!");
        let e = client
            .ask(&[Message::new("user", "hi".into())])
            .unwrap_err();
        assert!(matches!(e, ChatError::GaveUp { tries: 1, .. }), "{e}");
        assert!(!e.to_string().contains("sk-secret"));
    }

    #[test]
    fn retry_after_is_read_in_seconds_and_capped() {
        let mut h = hyper::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after", "86400".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(60)));
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2026 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }
}
