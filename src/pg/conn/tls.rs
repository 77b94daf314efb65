//! TLS for csvload's connections with libpq's `sslmode` semantics, on rustls.
//!
//! Why rustls (with the `ring` provider) rather than native-tls/OpenSSL: it builds on a fresh
//! machine with only a C compiler (no OpenSSL headers, no cmake as aws-lc needs), links
//! statically, and lets csvload say precisely why a certificate was refused (unknown CA, name
//! mismatch, expired) instead of an OpenSSL error string. `sslrootcert=system` reads the OS
//! trust store files (rustls-native-certs: the same bundle OpenSSL's default paths name).
//!
//! libpq's rules, kept here:
//! - `disable`: plain only. `allow`: plain first, TLS if the server refuses that. `prefer`
//!   (default): TLS if the server offers it, plain otherwise (and plain again if the TLS attempt
//!   fails). `require`: TLS or nothing. `verify-ca`: TLS and a certificate chain to a trusted
//!   root. `verify-full`: also the host name in the certificate.
//! - The root certificates are `sslrootcert` (default `~/.postgresql/root.crt`). When that file
//!   exists, every mode that uses TLS checks the chain (so `require` then acts as `verify-ca`);
//!   when it does not, `verify-ca`/`verify-full` refuse to start and the others do not check.
//!   `sslrootcert=system` is the OS store, allowed with `verify-full` only (the default mode then).
//! - A client certificate `sslcert` (default `~/.postgresql/postgresql.crt`) is sent when the
//!   file exists, with its key `sslkey` (default `~/.postgresql/postgresql.key`), which must not
//!   be readable by group or others (0640 allowed for root-owned keys).
//! - TLS is never used on Unix sockets.
//!
//! - Certificates are verified as OpenSSL verifies them for libpq, X.509 v1 included, and
//!   verify-full matches the `host` string as libpq does (subjectAltName, else the Common
//!   Name): see `certverify/`, which says why it is csvload's own and what it refuses; the
//!   connector (`tlsconnect.rs`) gives each connection's verifier its host string.
//! - Every failure is said in words (`explain`): the certificate refused and why, the TLS
//!   alert a server sent (e.g. `unknown_ca` for a client certificate it does not trust).
//!
//! Differences from libpq: encrypted keys (`sslpassword`) and certificate revocation lists
//! (`sslcrl`, `sslcrldir`, and `~/.postgresql/root.crl` when the chain is checked) are refused
//! with a message; certverify/mod.rs lists the refusals of its certificate checks.

use super::certverify::{self, Cert, Refusal, Store};
use super::tlsconnect::{Connector, VerifierFor};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, SignatureScheme};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// libpq's `sslmode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Plain connections only.
    Disable,
    /// Plain first; TLS when the server refuses the plain connection.
    Allow,
    /// TLS when the server offers it (libpq's default).
    Prefer,
    /// TLS or nothing; the certificate chain is checked only when a root certificate file exists.
    Require,
    /// TLS with a certificate chain to a trusted root.
    VerifyCa,
    /// TLS with a trusted chain and the host name in the certificate.
    VerifyFull,
}

impl SslMode {
    /// Parses an `sslmode` value.
    pub fn parse(s: &str) -> Option<SslMode> {
        Some(match s {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// The libpq spelling.
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    /// Whether the user asked for TLS without a plain fallback.
    pub fn requires_tls(self) -> bool {
        matches!(
            self,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull
        )
    }
}

/// The TLS settings of a connection string (the `ssl*` keywords and PGSSL* variables).
#[derive(Debug, Default, Clone)]
pub struct SslParams {
    /// `sslmode` as given (None: libpq's default).
    pub mode: Option<String>,
    /// `sslrootcert`.
    pub rootcert: Option<String>,
    /// `sslcert`.
    pub cert: Option<String>,
    /// `sslkey`.
    pub key: Option<String>,
    /// `sslsni` (`0` turns Server Name Indication off).
    pub sni: Option<String>,
}

/// A prepared TLS setup: the mode and, unless it is `disable`, the rustls configuration.
#[derive(Clone)]
pub struct Tls {
    /// The effective mode.
    pub mode: SslMode,
    /// What is verified, for messages (`the chain to /x/root.crt and the host name`).
    pub verifies: String,
    config: Option<Connector>,
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn home_file(home: Option<&Path>, name: &str) -> Option<PathBuf> {
    home.map(|h| h.join(".postgresql").join(name))
}

impl Tls {
    /// Resolves the settings as libpq does (`home`: where `~/.postgresql` is). With
    /// `sockets_only` (every host a Unix socket, where TLS is never used) the certificate
    /// files are not read, as libpq reads them only when it starts TLS.
    pub fn new(p: &SslParams, home: Option<&Path>, sockets_only: bool) -> Result<Tls, String> {
        let system = p.rootcert.as_deref() == Some("system");
        let mode = match p.mode.as_deref().filter(|m| !m.is_empty()) {
            Some(m) => SslMode::parse(m).ok_or_else(|| {
                format!(
                    "invalid sslmode value: \"{m}\" (use disable, allow, prefer, require, \
                     verify-ca or verify-full)"
                )
            })?,
            // libpq 16: sslrootcert=system makes verify-full the default.
            None if system => SslMode::VerifyFull,
            None => SslMode::Prefer,
        };
        if system && mode != SslMode::VerifyFull {
            return Err(format!(
                "weak sslmode \"{}\" may not be used with sslrootcert=system (use \"verify-full\")",
                mode.name()
            ));
        }
        if mode == SslMode::Disable || sockets_only {
            return Ok(Tls {
                mode,
                verifies: "nothing".into(),
                config: None,
            });
        }
        let provider = provider();
        let root_path = match p.rootcert.as_deref().filter(|r| !r.is_empty()) {
            Some(r) => Some(PathBuf::from(r)),
            None => home_file(home, "root.crt"),
        };
        let roots = if system {
            let found = rustls_native_certs::load_native_certs();
            let store = Store::from_ders(found.certs.iter().map(|c| c.as_ref()));
            if store.is_empty() {
                return Err(
                    "sslrootcert=system: no trusted root certificates found in the operating \
                     system's store"
                        .into(),
                );
            }
            Some((store, "the operating system's trusted roots".to_string()))
        } else {
            match &root_path {
                Some(path) if path.exists() => Some((
                    read_roots(path)?,
                    format!("root certificate file {}", path.display()),
                )),
                _ if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) => {
                    return Err(match &root_path {
                        Some(path) => format!(
                            "root certificate file \"{}\" does not exist; provide the file \
                             (sslrootcert=FILE or PGSSLROOTCERT), use the system's trusted \
                             roots with sslrootcert=system, or change sslmode to disable \
                             server certificate verification",
                            path.display()
                        ),
                        None => "could not get home directory to locate root certificate \
                                 file; provide it with sslrootcert=FILE"
                            .into(),
                    });
                }
                _ => None,
            }
        };
        if roots.is_some() {
            refuse_crl(home)?;
        }
        let algs = provider.signature_verification_algorithms;
        let (roots, verifies) = match roots {
            None => (
                None,
                "nothing (no root certificate file: the server is not authenticated)".into(),
            ),
            Some((store, from)) if mode == SslMode::VerifyFull => (
                Some(store),
                format!("the certificate chain to {from} and the host name"),
            ),
            Some((store, from)) => (
                Some(store),
                format!("the certificate chain to {from} (not the host name)"),
            ),
        };
        let verifier = Arc::new(Verifier {
            roots: roots.map(Arc::new),
            full: mode == SslMode::VerifyFull,
            algs,
            host: String::new(),
        });
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier.clone());
        let mut config = match client_cert(p, home)? {
            Some((chain, key, cert_path, key_path)) => {
                // Not `with_client_auth_cert`: it parses the certificate with webpki to
                // compare keys, which refuses X.509 v1 certificates; the server (OpenSSL)
                // takes them, so the key is compared here on our own parse.
                let signer = provider.key_provider.load_private_key(key).map_err(|e| {
                    format!(
                        "could not load private key file \"{}\": {}",
                        key_path.display(),
                        rustls_words(&e)
                    )
                })?;
                let cert = Cert::parse(&chain[0], "the client certificate", true).map_err(|r| {
                    format!("client certificate file \"{}\": {r}", cert_path.display())
                })?;
                if let Some(public) = signer.public_key()
                    && public.as_ref() != cert.spki()
                {
                    return Err(format!(
                        "certificate does not match private key file \"{}\" (client \
                         certificate \"{}\")",
                        key_path.display(),
                        cert_path.display()
                    ));
                }
                let certified = rustls::sign::CertifiedKey::new(chain, signer);
                builder.with_client_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
                    certified,
                )))
            }
            None => builder.with_no_client_auth(),
        };
        if p.sni.as_deref() == Some("0") {
            config.enable_sni = false;
        }
        // Each connection gets a verifier that knows its host string (tlsconnect.rs).
        let for_host: VerifierFor = Arc::new(move |host: &str| {
            Arc::new(Verifier {
                host: host.to_string(),
                ..(*verifier).clone()
            }) as Arc<dyn ServerCertVerifier>
        });
        Ok(Tls {
            mode,
            verifies,
            config: Some(Connector::new(Arc::new(config), for_host)),
        })
    }

    /// The connector for tokio-postgres (None for `disable`).
    pub fn connector(&self) -> Option<Connector> {
        self.config.clone()
    }
}

/// The root certificate file, read as OpenSSL reads a CA file (certverify's store.rs).
fn read_roots(path: &Path) -> Result<Store, String> {
    let text = std::fs::read(path).map_err(|e| {
        format!(
            "could not read root certificate file \"{}\": {e}",
            path.display()
        )
    })?;
    Store::from_pem(
        &text,
        &format!("root certificate file \"{}\"", path.display()),
    )
}

/// libpq checks certificate revocation lists whenever it verifies the chain and finds
/// `~/.postgresql/root.crl` (or `sslcrl`/`sslcrldir`, refused with the other unsupported
/// keywords); csvload does not check them, so it refuses rather than connect without the
/// check libpq would make.
fn refuse_crl(home: Option<&Path>) -> Result<(), String> {
    match home_file(home, "root.crl") {
        Some(crl) if crl.is_file() => Err(format!(
            "certificate revocation list \"{}\" exists, and libpq would check the server's \
             certificate chain against it; csvload does not check revocation lists, so it \
             refuses to connect (move the file away to connect without the check, or use psql)",
            crl.display()
        )),
        _ => Ok(()),
    }
}

fn read_certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<Result<_, _>>())
        .map_err(|e| format!("could not read {what} file \"{}\": {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{what} file \"{}\" holds no PEM certificate",
            path.display()
        ));
    }
    Ok(certs)
}

/// The client certificate chain and key, when the certificate file exists, and both files.
type ClientCert = (
    Vec<CertificateDer<'static>>,
    PrivateKeyDer<'static>,
    PathBuf,
    PathBuf,
);

fn client_cert(p: &SslParams, home: Option<&Path>) -> Result<Option<ClientCert>, String> {
    let cert_path = match p.cert.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => match home_file(home, "postgresql.crt") {
            Some(c) => c,
            None => return Ok(None),
        },
    };
    if !cert_path.exists() {
        // libpq: no certificate file, no client certificate (silently).
        return Ok(None);
    }
    let chain = read_certs(&cert_path, "client certificate")?;
    let key_path = match p.key.as_deref().filter(|k| !k.is_empty()) {
        Some(k) => PathBuf::from(k),
        None => home_file(home, "postgresql.key").unwrap_or_default(),
    };
    let meta = std::fs::metadata(&key_path).map_err(|_| {
        format!(
            "certificate present, but not private key file \"{}\"",
            key_path.display()
        )
    })?;
    {
        use std::os::unix::fs::MetadataExt;
        // libpq: u=rw (0600) or less if owned by the user, u=rw,g=r (0640) if owned by root.
        let too_open = if meta.uid() == 0 {
            meta.mode() & 0o037 != 0
        } else {
            meta.mode() & 0o077 != 0
        };
        if !meta.is_file() {
            return Err(format!(
                "private key file \"{}\" is not a regular file",
                key_path.display()
            ));
        }
        if too_open {
            return Err(format!(
                "private key file \"{}\" has group or world access; file must have \
                 permissions u=rw (0600) or less if owned by the current user, or permissions \
                 u=rw,g=r (0640) or less if owned by root",
                key_path.display()
            ));
        }
    }
    let text = std::fs::read(&key_path).map_err(|e| {
        format!(
            "could not read private key file \"{}\": {e}",
            key_path.display()
        )
    })?;
    if text.windows(b"ENCRYPTED".len()).any(|w| w == b"ENCRYPTED") {
        return Err(format!(
            "private key file \"{}\" is encrypted; csvload does not support sslpassword \
             (decrypt it: openssl pkey -in KEY -out PLAIN.key)",
            key_path.display()
        ));
    }
    let key = PrivateKeyDer::from_pem_slice(&text).map_err(|e| {
        format!(
            "could not load private key file \"{}\": {e}",
            key_path.display()
        )
    })?;
    Ok(Some((chain, key, cert_path, key_path)))
}

/// The server certificate verifier for every mode that uses TLS. Without root certificates
/// (`require`/`prefer`/`allow` and no `sslrootcert` file) the server's certificate is not
/// checked (libpq does the same), but the handshake signatures still are, so the session is
/// bound to the key in the certificate the server sent (and channel binding can rely on it).
/// With roots, the chain is checked as OpenSSL does (certverify.rs), and with verify-full the
/// host name as libpq does. The handshake signatures are checked on our own parse of the
/// certificate: rustls's functions parse it with webpki, which refuses X.509 v1.
#[derive(Debug, Clone)]
struct Verifier {
    roots: Option<Arc<Store>>,
    full: bool,
    algs: WebPkiSupportedAlgorithms,
    /// The connection's `host` string, as given (verify-full compares it).
    host: String,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else {
            return Ok(ServerCertVerified::assertion());
        };
        let sent: Vec<&[u8]> = std::iter::once(end_entity.as_ref())
            .chain(intermediates.iter().map(|c| c.as_ref()))
            .collect();
        let leaf = certverify::verify(&sent, roots, now.as_secs() as i64)
            .map_err(certverify::into_rustls)?;
        if self.full {
            certverify::check_host(&leaf, &self.host).map_err(certverify::into_rustls)?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        certverify::verify_handshake_signature(message, cert, dss, &self.algs, false)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        certverify::verify_handshake_signature(message, cert, dss, &self.algs, true)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algs.supported_schemes()
    }
}

/// Words for a TLS failure found in an error's source chain (None: not a TLS failure).
pub fn explain(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<rustls::Error>() {
            return Some(rustls_words(r));
        }
        // io::Error's source() skips the error it wraps; look inside it.
        if let Some(inner) = err
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            && let Some(r) = inner.downcast_ref::<rustls::Error>()
        {
            return Some(rustls_words(r));
        }
        cur = err.source();
    }
    None
}

/// The RFC 8446 name of a TLS alert.
fn alert_name(code: u8) -> String {
    let name = match code {
        0x00 => "close_notify",
        0x0a => "unexpected_message",
        0x14 => "bad_record_mac",
        0x16 => "record_overflow",
        0x28 => "handshake_failure",
        0x2a => "bad_certificate",
        0x2b => "unsupported_certificate",
        0x2c => "certificate_revoked",
        0x2d => "certificate_expired",
        0x2e => "certificate_unknown",
        0x2f => "illegal_parameter",
        0x30 => "unknown_ca",
        0x31 => "access_denied",
        0x32 => "decode_error",
        0x33 => "decrypt_error",
        0x46 => "protocol_version",
        0x47 => "insufficient_security",
        0x50 => "internal_error",
        0x56 => "inappropriate_fallback",
        0x5a => "user_canceled",
        0x6d => "missing_extension",
        0x6e => "unsupported_extension",
        0x70 => "unrecognized_name",
        0x74 => "certificate_required",
        0x78 => "no_application_protocol",
        _ => return format!("alert number {code}"),
    };
    name.to_string()
}

/// What a fatal alert from the server means for csvload's user.
fn alert_words(code: u8) -> String {
    let name = alert_name(code);
    let why = match code {
        // The server (OpenSSL) refused our client certificate.
        0x30 => {
            "the server refused the client certificate (sslcert): it does not trust the \
                 certificate authority that issued it (check the server's ssl_ca_file)"
        }
        0x2d => "the server refused the client certificate (sslcert): it has expired",
        0x2a | 0x2b | 0x2e | 0x2c => {
            "the server refused the client certificate (sslcert) or could not verify it"
        }
        0x74 => "the server requires a client certificate and none was sent (sslcert)",
        0x28 => {
            "the server and csvload have no TLS version, cipher suite or signature \
                 scheme in common"
        }
        0x46 => "the server does not accept the TLS versions csvload offers (1.2 and 1.3)",
        0x33 => "the server could not verify the handshake (a wrong client key?)",
        _ => "the server ended the TLS handshake",
    };
    format!("{why} (TLS alert {name} from the server)")
}

/// A CamelCase name as lower-case words ("ServerDoesNotSupportTls12Or13" -> "server does not
/// support tls12 or13"): rustls's detail enums have no Display of their own.
fn camel_words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The variant name of a rustls detail enum, in words.
fn detail_words(d: &dyn std::fmt::Debug) -> String {
    let text = format!("{d:?}");
    let name: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    camel_words(&name)
}

fn rustls_words(e: &rustls::Error) -> String {
    use rustls::Error as E;
    const FAILED: &str = "server certificate verification failed";
    match e {
        E::InvalidCertificate(c) => match c {
            CertificateError::Other(o) => match o.0.downcast_ref::<Refusal>() {
                Some(r) => format!("{FAILED}: {r}"),
                None => format!("{FAILED}: {}", o.0),
            },
            CertificateError::UnknownIssuer => {
                format!("{FAILED}: issued by an unknown certificate authority")
            }
            CertificateError::BadSignature => format!(
                "{FAILED}: the server's handshake signature does not verify with the key of \
                 its certificate"
            ),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                format!("{FAILED}: the certificate has expired")
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                format!("{FAILED}: the certificate is not valid yet")
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!("{FAILED}: host name mismatch")
            }
            other => format!("{FAILED}: {}", detail_words(other)),
        },
        E::AlertReceived(a) => alert_words(u8::from(*a)),
        E::NoCertificatesPresented => "the server sent no certificate".into(),
        E::DecryptError => "TLS failed: a record could not be decrypted".into(),
        E::PeerIncompatible(why) => format!(
            "the server's TLS is incompatible with csvload's: {}",
            detail_words(why)
        ),
        E::PeerMisbehaved(why) => {
            format!("the server broke the TLS protocol: {}", detail_words(why))
        }
        E::InvalidMessage(why) => format!(
            "the server sent an invalid TLS message ({}); is this port a PostgreSQL server?",
            detail_words(why)
        ),
        E::InappropriateMessage { .. } | E::InappropriateHandshakeMessage { .. } => {
            "the server sent an unexpected TLS message".into()
        }
        E::InconsistentKeys(_) => {
            "the client certificate does not match its private key (sslcert, sslkey)".into()
        }
        E::General(m) => format!("TLS failed: {m}"),
        E::Other(o) => format!("TLS failed: {}", o.0),
        other => format!("TLS failed: {}", detail_words(other)),
    }
}
