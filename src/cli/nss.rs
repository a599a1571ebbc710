//! Host and user lookups in the static glibc binary (`--features static` with
//! `-C target-feature=+crt-static`, README "Installing on a cluster").
//!
//! A statically linked glibc still reads `/etc/nsswitch.conf`. Its built-in
//! `files` and `dns` services need nothing at run time, but any other service
//! named there (`myhostname`, `mdns4_minimal`, `sss`, `systemd`, `resolve`…)
//! makes glibc `dlopen` the host's `libnss_*.so.2`, built against the host's
//! glibc: with glibc 2.36 linked in and a 2.31 host this aborts the process
//! (`_dl_call_libc_early_init: Assertion 'sym != NULL' failed`). RHEL's default
//! `hosts: files dns myhostname` reaches `myhostname` for every name that
//! neither `/etc/hosts` nor DNS knows, so a mistyped mirror host would kill
//! `stack` instead of giving an error.
//!
//! So the static binary pins the databases it may consult (host names for
//! downloads — reqwest and libgit2 both call `getaddrinfo` —, and the user
//! databases libgit2 and the standard library read when `$HOME` is unset) to
//! the built-in services before anything else runs. Host names then come from
//! `/etc/hosts` and the DNS servers of `/etc/resolv.conf`, users from
//! `/etc/passwd`. `STACK_NSSWITCH=system` keeps `nsswitch.conf` as it is (a
//! site whose host names come from LDAP or sssd, on a host whose glibc is the
//! linked one). A dynamically linked `stack` uses the host's own glibc and
//! its whole `nsswitch.conf`; nothing is changed there.

/// The services each database is pinned to in the static binary.
#[cfg(all(target_env = "gnu", target_feature = "crt-static"))]
const PINNED: [(&std::ffi::CStr, &std::ffi::CStr); 3] = [
    (c"hosts", c"files dns"),
    (c"passwd", c"files"),
    (c"group", c"files"),
];

/// Pin name-service lookups to glibc's built-in services (static glibc only;
/// a no-op otherwise). Must run before any thread starts.
#[cfg(all(target_env = "gnu", target_feature = "crt-static"))]
pub(crate) fn pin_builtin_services() {
    unsafe extern "C" {
        // glibc <nss.h>: replaces the nsswitch.conf line of one database.
        fn __nss_configure_lookup(
            db: *const std::ffi::c_char,
            service_line: *const std::ffi::c_char,
        ) -> std::ffi::c_int;
    }
    if stack::settings::nsswitch_system() {
        tracing::debug!("STACK_NSSWITCH=system: nsswitch.conf's services are used as they are");
        return;
    }
    for (db, services) in PINNED {
        // SAFETY: both are NUL-terminated static strings; called from main
        // before any other thread exists (the function is not thread-safe).
        let rc = unsafe { __nss_configure_lookup(db.as_ptr(), services.as_ptr()) };
        tracing::debug!(
            "static glibc: {} lookups use `{}` only (nsswitch.conf's other services need the host's glibc){}",
            db.to_string_lossy(),
            services.to_string_lossy(),
            if rc == 0 { "" } else { " — glibc refused" }
        );
    }
}

/// Pin name-service lookups to glibc's built-in services (static glibc only;
/// a no-op otherwise). Must run before any thread starts.
#[cfg(not(all(target_env = "gnu", target_feature = "crt-static")))]
pub(crate) fn pin_builtin_services() {}
