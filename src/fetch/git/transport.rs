//! git remotes over `http://` and `https://`: libgit2's smart protocol on top of stack's own
//! HTTP client (reqwest and rustls, [`crate::tls`]'s trust roots, the proxy environment), instead
//! of libgit2's built-in transport and OpenSSL.
//!
//! libgit2 speaks the protocol (ref advertisement, negotiation, pack); the subtransport here
//! only carries its bytes: the ref advertisement is `GET <url>/info/refs?service=git-upload-pack`,
//! each negotiation round a `POST <base>/git-upload-pack` ([`super::smart_http`]). Fetching is
//! all stack does: pushing (`git-receive-pack`) is refused.
//!
//! libgit2 picks a transport by URL prefix, process-wide; [`register`] installs this one once.
//! The HTTP client of a fetch reaches it through [`enter`]: libgit2 creates the transport and
//! does all its I/O on the thread that calls `Remote::fetch`, so a thread-local session carries
//! the client, and brings back the typed error of a failed request.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use git2::transport::{Service, SmartSubtransport, SmartSubtransportStream, Transport};

use super::smart_http::{Base, Stream};
use crate::fetch::error::FetchError;
use crate::fetch::http::Http;

/// The HTTP side of one fetch on one thread: the client, and the first request error.
pub(super) struct Session {
    http: Option<Http>,
    error: Mutex<Option<FetchError>>,
}

impl Session {
    pub(super) fn new(http: Option<&Http>) -> Session {
        Session {
            http: http.cloned(),
            error: Mutex::new(None),
        }
    }

    /// The first request error of the fetch, taken out.
    pub(super) fn take_error(&self) -> Option<FetchError> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Keep the first error of the fetch (later ones are its consequences).
    pub(super) fn failed(&self, e: FetchError) {
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Session>>> = const { RefCell::new(None) };
}

/// The session of this thread while it is alive; the previous one again when dropped.
pub(crate) struct Entered {
    session: Arc<Session>,
    previous: Option<Arc<Session>>,
}

impl Entered {
    /// The request error that made the fetch fail, if it was one of ours.
    pub(crate) fn take_error(&self) -> Option<FetchError> {
        self.session.take_error()
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Make `http` the client of the git fetches this thread makes until the result is dropped.
pub(crate) fn enter(http: Option<&Http>) -> Entered {
    let session = Arc::new(Session::new(http));
    let previous = CURRENT.with(|c| c.borrow_mut().replace(session.clone()));
    Entered { session, previous }
}

/// Install the transport for `http://` and `https://` (once per process). Call it before any
/// git remote is created.
pub(crate) fn register() -> Result<(), git2::Error> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            for scheme in ["http", "https"] {
                // SAFETY: git2 requires registration to be synchronised with the creation of
                // transports (libgit2 reads its list of registered transports unlocked when it
                // creates one). Every git remote `stack` creates is created in
                // `repo::fetch` after this function returned, and this closure runs once:
                // `OnceLock` blocks every other caller until it has finished. So no transport
                // is created while the list changes.
                unsafe { git2::transport::register(scheme, create) }
                    .map_err(|e| format!("{scheme}: {}", e.message()))?;
            }
            Ok(())
        })
        .clone()
        .map_err(|message| {
            git2::Error::from_str(&format!("cannot register the git transport: {message}"))
        })
}

/// libgit2's factory for an http(s) remote: a stateless smart transport over [`SmartHttp`].
fn create(remote: &git2::Remote<'_>) -> Result<Transport, git2::Error> {
    let session = CURRENT.with(|c| c.borrow().clone());
    Transport::smart(
        remote,
        true,
        SmartHttp {
            session,
            base: Base::default(),
        },
    )
}

/// The subtransport of one remote connection.
struct SmartHttp {
    session: Option<Arc<Session>>,
    /// Where the ref advertisement came from after redirects: the base of the POSTs.
    base: Base,
}

impl SmartSubtransport for SmartHttp {
    fn action(
        &self,
        url: &str,
        action: Service,
    ) -> Result<Box<dyn SmartSubtransportStream>, git2::Error> {
        let (session, http) = match &self.session {
            Some(s) => match &s.http {
                Some(http) => (s.clone(), http.clone()),
                None => return Err(no_client(url)),
            },
            None => return Err(no_client(url)),
        };
        match action {
            Service::UploadPackLs => Ok(Box::new(Stream::refs(
                http,
                session,
                url,
                self.base.clone(),
            ))),
            Service::UploadPack => Ok(Box::new(Stream::upload_pack(
                http,
                session,
                &self.base.get_or(url),
            ))),
            Service::ReceivePackLs | Service::ReceivePack => Err(git2::Error::from_str(&format!(
                "{url}: stack only fetches from git remotes; pushing (git-receive-pack) over \
                 http(s) is not supported"
            ))),
        }
    }

    fn close(&self) -> Result<(), git2::Error> {
        Ok(())
    }
}

fn no_client(url: &str) -> git2::Error {
    git2::Error::from_str(&format!(
        "{url}: no HTTP client for this git fetch (stack fetches git remotes over http(s) only \
         within a fetch run)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::SourceCache;
    use crate::fetch::options::FetchOptions;

    fn refused(t: &SmartHttp, action: Service) -> String {
        match t.action("http://127.0.0.1:9/r.git", action) {
            Ok(_) => panic!("{action:?} was accepted"),
            Err(e) => e.message().to_string(),
        }
    }

    #[test]
    fn pushing_is_refused_and_fetching_needs_a_client() {
        let d = tempfile::tempdir().unwrap();
        let http = Http::new(&FetchOptions::new(SourceCache::new(d.path()))).unwrap();
        let with_client = SmartHttp {
            session: Some(Arc::new(Session::new(Some(&http)))),
            base: Base::default(),
        };
        for action in [Service::ReceivePackLs, Service::ReceivePack] {
            let msg = refused(&with_client, action);
            assert!(
                msg.starts_with("http://127.0.0.1:9/r.git: stack only fetches"),
                "{msg}"
            );
        }
        assert!(
            with_client
                .action("http://127.0.0.1:9/r.git", Service::UploadPackLs)
                .is_ok()
        );
        let without = SmartHttp {
            session: None,
            base: Base::default(),
        };
        assert!(refused(&without, Service::UploadPackLs).contains("no HTTP client"));
    }

    #[test]
    fn sessions_nest_and_keep_the_first_error() {
        let outer = enter(None);
        {
            let inner = enter(None);
            let current = CURRENT.with(|c| c.borrow().clone()).unwrap();
            assert!(Arc::ptr_eq(&current, &inner.session));
            current.failed(FetchError::HttpStatus {
                url: "u1".into(),
                status: 404,
            });
            current.failed(FetchError::HttpStatus {
                url: "u2".into(),
                status: 500,
            });
            assert!(
                matches!(inner.take_error(), Some(FetchError::HttpStatus { url, .. }) if url == "u1")
            );
            assert!(inner.take_error().is_none());
        }
        let current = CURRENT.with(|c| c.borrow().clone()).unwrap();
        assert!(Arc::ptr_eq(&current, &outer.session));
        drop(outer);
        assert!(CURRENT.with(|c| c.borrow().is_none()));
    }
}
