//! The TLS connector tokio-postgres uses (its `MakeTlsConnect`), on tokio-rustls, doing what
//! libpq does where tokio-postgres-rustls did otherwise (issue 60):
//! - verify-full compares the `host` string as given (`localhost.`, `127.1`, `0:0:0:0:0:0:0:1`
//!   stay as written), not a name rustls normalised or an address it parsed; a host that is no
//!   valid DNS name (`127.1`) still connects;
//! - Server Name Indication is sent as libpq sends it: the host, unless it is all digits and
//!   dots or holds a colon (and never with `sslsni=0`);
//! - no TLS session is resumed (libpq keeps none; a resumed session skips the certificate
//!   check, which is bound to the host string here);
//! - channel binding (tls-server-end-point) hashes the certificate as libpq does: with the
//!   digest of its signature algorithm, SHA-256 for MD5 and SHA-1, PSS's own digest, SHA-224
//!   included (tokio-postgres-rustls knew neither PSS nor SHA-224, so `channel_binding=require`
//!   failed against a server whose certificate is signed with RSA-PSS).

use super::certverify::{self, Cert, Hash};
use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use rustls::ClientConfig;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::ServerName;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Makes a verifier for one connection from its host string.
pub type VerifierFor = Arc<dyn Fn(&str) -> Arc<dyn ServerCertVerifier> + Send + Sync>;

/// The connector: a client configuration and, per connection, a verifier for its host.
#[derive(Clone)]
pub struct Connector {
    config: Arc<ClientConfig>,
    verifier: VerifierFor,
}

impl Connector {
    /// A connector over `config` (its SNI setting kept), verifying with `verifier(host)`.
    pub fn new(config: Arc<ClientConfig>, verifier: VerifierFor) -> Connector {
        Connector { config, verifier }
    }
}

/// libpq's rule for sending the host as SNI (initialize_SSL): not all digits and dots, no
/// colon.
fn sni_host(host: &str) -> bool {
    !host.is_empty()
        && !host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && !host.contains(':')
}

/// The name rustls is given: the host as a DNS name when it gets SNI, else an address
/// (rustls sends no SNI for an address; the verifier uses the host string, not this).
fn server_name(host: &str) -> ServerName<'static> {
    if sni_host(host)
        && let Ok(n) = ServerName::try_from(host.to_string())
        && matches!(n, ServerName::DnsName(_))
    {
        return n;
    }
    let ip = certverify::inet_aton(host)
        .map(std::net::IpAddr::from)
        .or_else(|| {
            host.parse::<std::net::Ipv6Addr>()
                .ok()
                .map(std::net::IpAddr::from)
        })
        .unwrap_or(std::net::IpAddr::from([0u8, 0, 0, 0]));
    ServerName::IpAddress(ip.into())
}

impl<S> MakeTlsConnect<S> for Connector
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type TlsConnect = Connect;
    type Error = io::Error;

    fn make_tls_connect(&mut self, host: &str) -> io::Result<Connect> {
        let mut config = (*self.config).clone();
        config
            .dangerous()
            .set_certificate_verifier((self.verifier)(host));
        config.resumption = rustls::client::Resumption::disabled();
        let name = server_name(host);
        if !matches!(name, ServerName::DnsName(_)) {
            config.enable_sni = false;
        }
        Ok(Connect {
            connector: tokio_rustls::TlsConnector::from(Arc::new(config)),
            name,
        })
    }
}

/// One connection's TLS start.
pub struct Connect {
    connector: tokio_rustls::TlsConnector,
    name: ServerName<'static>,
}

impl<S> TlsConnect<S> for Connect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Stream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let s = self.connector.connect(self.name, stream).await?;
            Ok(Stream(s))
        })
    }
}

/// A TLS connection.
pub struct Stream<S>(tokio_rustls::client::TlsStream<S>);

/// The tls-server-end-point hash libpq computes of the server's certificate
/// (pgtls_get_peer_certificate_hash): None where libpq fails (Ed25519, Ed448, an algorithm
/// whose digest it cannot find).
pub fn end_point_hash(cert_der: &[u8]) -> Option<Vec<u8>> {
    let c = Cert::parse(cert_der, "the server's certificate", false).ok()?;
    let h: Hash = c.sig.binding_hash()?;
    Some(certverify::digest(h, cert_der))
}

impl<S> TlsStream for Stream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn channel_binding(&self) -> ChannelBinding {
        let (_, session) = self.0.get_ref();
        match session
            .peer_certificates()
            .and_then(|c| c.first())
            .and_then(|c| end_point_hash(c))
        {
            Some(h) => ChannelBinding::tls_server_end_point(h),
            None => ChannelBinding::none(),
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Stream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Stream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sni_as_libpq_sends_it() {
        assert!(sni_host("db.example.com"));
        assert!(sni_host("localhost."));
        assert!(!sni_host("127.1"));
        assert!(!sni_host("10.0.0.5"));
        assert!(!sni_host("::1"));
        assert!(matches!(server_name("127.1"), ServerName::IpAddress(_)));
        assert!(matches!(
            server_name("db.example.com"),
            ServerName::DnsName(_)
        ));
    }
}
