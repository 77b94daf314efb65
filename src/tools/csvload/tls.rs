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
//! Differences from libpq: encrypted keys (`sslpassword`) and CRLs (`sslcrl`) are refused with a
//! message; verify-full matches the certificate's subjectAltName entries only (no fallback to
//! the Common Name of SAN-less certificates, which today's CAs no longer issue).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
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
    config: Option<Arc<ClientConfig>>,
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
            let mut store = RootCertStore::empty();
            let (added, _) = store.add_parsable_certificates(found.certs);
            if added == 0 {
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
        let (verifier, verifies): (Arc<dyn ServerCertVerifier>, String) = match roots {
            None => (
                Arc::new(NoChainCheck {
                    algs: provider.signature_verification_algorithms,
                }),
                "nothing (no root certificate file: the server is not authenticated)".into(),
            ),
            Some((store, from)) if mode == SslMode::VerifyFull => (
                rustls::client::WebPkiServerVerifier::builder_with_provider(
                    Arc::new(store),
                    provider.clone(),
                )
                .build()
                .map_err(|e| format!("cannot use the root certificates: {e}"))?,
                format!("the certificate chain to {from} and the host name"),
            ),
            Some((store, from)) => (
                Arc::new(ChainOnly {
                    roots: Arc::new(store),
                    algs: provider.signature_verification_algorithms,
                }),
                format!("the certificate chain to {from} (not the host name)"),
            ),
        };
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let mut config = match client_cert(p, home)? {
            Some((chain, key)) => builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| format!("cannot use the client certificate: {e}"))?,
            None => builder.with_no_client_auth(),
        };
        if p.sni.as_deref() == Some("0") {
            config.enable_sni = false;
        }
        Ok(Tls {
            mode,
            verifies,
            config: Some(Arc::new(config)),
        })
    }

    /// The connector for tokio-postgres (None for `disable`).
    pub fn connector(&self) -> Option<tokio_postgres_rustls::MakeRustlsConnect> {
        self.config
            .as_ref()
            .map(|c| tokio_postgres_rustls::MakeRustlsConnect::new((**c).clone()))
    }
}

fn read_roots(path: &Path) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    let certs = read_certs(path, "root certificate")?;
    let (added, _) = store.add_parsable_certificates(certs);
    if added == 0 {
        return Err(format!(
            "root certificate file \"{}\" holds no usable certificate",
            path.display()
        ));
    }
    Ok(store)
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

/// The client certificate chain and key, when the certificate file exists.
type ClientCert = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

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
    Ok(Some((chain, key)))
}

/// `require` without root certificates: the server's certificate is not checked (libpq does
/// the same), but the handshake signatures still are, so the session is bound to the key in
/// the certificate the server sent (and channel binding can rely on it).
#[derive(Debug)]
struct NoChainCheck {
    algs: WebPkiSupportedAlgorithms,
}

/// `verify-ca` (and `require`/`prefer`/`allow` with a root certificate file): the chain to a
/// trusted root, validity dates and key usage are checked; the host name is not.
#[derive(Debug)]
struct ChainOnly {
    roots: Arc<RootCertStore>,
    algs: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for NoChainCheck {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algs.supported_schemes()
    }
}

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let cert = rustls::server::ParsedCertificate::try_from(end_entity)?;
        rustls::client::verify_server_cert_signed_by_trust_anchor(
            &cert,
            &self.roots,
            intermediates,
            now,
            self.algs.all,
        )?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algs)
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

fn rustls_words(e: &rustls::Error) -> String {
    use rustls::Error as E;
    match e {
        E::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => {
                "server certificate verification failed: issued by an unknown certificate \
                 authority (not signed by any certificate in sslrootcert)"
                    .into()
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!(
                    "server certificate verification failed: host name mismatch ({c}); \
                     verify-full checks that the certificate names the host connected to"
                )
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                format!("server certificate verification failed: the certificate has expired ({c})")
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                format!(
                    "server certificate verification failed: the certificate is not valid yet ({c})"
                )
            }
            other => format!("server certificate verification failed: {other}"),
        },
        E::AlertReceived(a) => format!(
            "the server ended the TLS handshake ({a:?} alert; a server that wants a client \
             certificate sends this when none or an untrusted one was given)"
        ),
        other => format!("TLS handshake failed: {other}"),
    }
}
