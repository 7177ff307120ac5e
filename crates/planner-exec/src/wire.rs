//! The read and audit path's connections: one request exchange per intent, counted on the socket.
//!
//! Hand-written on top of `deadpool` (the pool) and `tokio-postgres` (the protocol) because sqlx,
//! which serves the rest of the crate, was measured to cost round trips no pool option removes:
//! sqlx 0.9 pings every pooled connection when it is released (`PoolConnection::return_to_pool`),
//! and it sends one request at a time, so the executor's transaction took four to six round
//! trips (the set-up, the statement, the post-condition, the commit, the ping). tokio-postgres
//! pipelines: requests polled together leave in one write and their replies come back in one
//! read. What is hand-written here is what that measurement asked for and nothing generic:
//!
//! - a connection is never pinged: deadpool hands it out again as long as its connection task
//!   lives ([`Client::is_closed`]); a broken connection shows as a failed request, and the lease
//!   that saw any failure (or was dropped halfway, by a timeout) closes its connection instead of
//!   returning it, so no half-finished transaction is ever handed to the next request. A lost
//!   connection also closes the idle ones (the server usually ended them all), and the request
//!   runs once more on a new connection: a read-only statement again, an audit group again
//!   under the same ids (which cannot commit twice);
//! - each connection keeps its prepared statements (the registry's SQL is fixed, so each is
//!   prepared once per connection);
//! - the socket is wrapped in a counter of round trips: a read that returns bytes after bytes
//!   were written since the last such read is one round trip. It counts what the network sees,
//!   whatever the code above believes it sends ([`WirePool::round_trips`]).
//!
//! TLS follows the URL's `sslmode` and `sslrootcert` as the sqlx pools do ([`crate::tls`]): the
//! counter sits under TLS, so it counts the records on the wire.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use deadpool::Runtime;
use deadpool::managed::{self, Metrics, Object, QueueMode, RecycleError, RecycleResult};
use futures::future::join_all;
use sqlx::ConnectOptions as _;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::config::Host;
use tokio_postgres::types::Type;
use tokio_postgres::{Client, Config, NoTls, Statement};

use planner_crypto::rustls::ClientConfig;
use planner_crypto::rustls::pki_types::ServerName;

use crate::error::{Error, Result};
use crate::tls::{PgTls, RustlsConnect, TlsError};

/// How long a request waits for a free connection, and a new connection may take to open,
/// before the database counts as unavailable.
const WAIT: Duration = Duration::from_secs(5);

/// Round trips and connections seen on a [`WirePool`]'s sockets since it was built.
#[derive(Debug, Default)]
struct Counts {
    round_trips: AtomicU64,
    connections: AtomicU64,
}

/// A pool of pipelining connections to one PostgreSQL server, for the guarded executor
/// ([`execute`](crate::execute)) and the audit writer ([`write_audits`](crate::write_audits)).
/// Cloning shares the pool.
#[derive(Clone)]
pub struct WirePool {
    pool: managed::Pool<Manager>,
    counts: Arc<Counts>,
}

impl std::fmt::Debug for WirePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = self.pool.status();
        f.debug_struct("WirePool")
            .field("size", &status.size)
            .field("available", &status.available)
            .field("round_trips", &self.round_trips())
            .finish()
    }
}

impl WirePool {
    /// A pool of at most `max_size` connections with `config`, without TLS (whatever its
    /// `ssl_mode`): the server must accept a plain connection. [`WirePool::with_tls`] and the
    /// other constructors follow the URL's TLS settings.
    pub fn new(mut config: Config, max_size: usize) -> WirePool {
        config.ssl_mode(tokio_postgres::config::SslMode::Disable);
        WirePool::build(config, Ok(None), max_size)
    }

    /// A pool of at most `max_size` connections with `config`, using TLS as `tls` says.
    pub fn with_tls(mut config: Config, tls: &PgTls, max_size: usize) -> Result<WirePool> {
        let client = tls.client_config().map_err(Error::from)?;
        config.ssl_mode(tls.wire_mode());
        Ok(WirePool::build(config, Ok(client), max_size))
    }

    fn build(
        config: Config,
        tls: Result<Option<Arc<ClientConfig>>, TlsError>,
        max_size: usize,
    ) -> WirePool {
        let counts = Arc::new(Counts::default());
        let manager = Manager { config, tls, counts: Arc::clone(&counts) };
        let pool = managed::Pool::builder(manager)
            .max_size(max_size.max(1))
            // The connection returned last is handed out first: the fewest connections stay
            // busy, and they are the ones whose statements are prepared.
            .queue_mode(QueueMode::Lifo)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(WAIT))
            .build()
            // Only a missing runtime fails the build, and one is always given.
            .unwrap_or_else(|err| unreachable!("the pool has a runtime: {err}"));
        WirePool { pool, counts }
    }

    /// A pool to the same server, database and login as `pool`, of the same size, with its
    /// TLS settings (a setting this client cannot serve fails each connection, saying why).
    pub fn from_pg_pool(pool: &sqlx::PgPool) -> WirePool {
        let options = pool.connect_options();
        let mut config = Config::new();
        config.user(options.get_username()).port(options.get_port());
        match options.get_socket() {
            Some(dir) => config.host_path(dir),
            None => config.host(options.get_host()),
        };
        if let Some(database) = options.get_database() {
            config.dbname(database);
        }
        if let Some(name) = options.get_application_name() {
            config.application_name(name);
        }
        // sqlx keeps the password and the root certificate to itself except in its URL.
        let url = options.to_url_lossy();
        if let Some(password) = url.password() {
            let password: Vec<u8> = percent_encoding::percent_decode_str(password).collect();
            config.password(password);
        }
        let size = pool.options().get_max_connections() as usize;
        let tls = PgTls::from_sqlx(&options).and_then(|tls| {
            config.ssl_mode(tls.wire_mode());
            tls.client_config()
        });
        WirePool::build(config, tls, size)
    }

    /// A pool of at most `max_size` connections to a `postgres://` URL, with its TLS settings.
    pub fn from_url(url: &str, max_size: usize) -> Result<WirePool> {
        let (tls, rest) = PgTls::split_url(url)?;
        let config: Config = rest
            .parse()
            .map_err(|_| Error::InvalidRequest { reason: "not a valid postgres:// URL" })?;
        WirePool::with_tls(config, &tls, max_size)
    }

    /// Round trips on this pool's sockets since it was built: a read that returned bytes after
    /// bytes were written since the previous such read. Opening a connection counts too.
    pub fn round_trips(&self) -> u64 {
        self.counts.round_trips.load(Ordering::Relaxed)
    }

    /// Connections this pool opened since it was built.
    pub fn connections_opened(&self) -> u64 {
        self.counts.connections.load(Ordering::Relaxed)
    }

    /// One empty request on a pooled connection: whether the server answers.
    pub async fn check(&self) -> Result<()> {
        let lease = self.lease().await?;
        lease.client().batch_execute("").await.map_err(Error::from)?;
        lease.keep();
        Ok(())
    }

    /// Closes every idle connection: called when a request lost its connection, which usually
    /// means the server ended them all (a restart, a terminated database), so that the next
    /// request opens a new one rather than meet another dead one.
    pub(crate) fn forget_idle(&self) {
        drop(self.pool.retain(|_, _| false));
    }

    /// A connection, returned to the pool only through [`Lease::keep`].
    pub(crate) async fn lease(&self) -> Result<Lease> {
        let object = self.pool.get().await.map_err(|err| match err {
            managed::PoolError::Backend(ConnectError::Tls(err)) => Error::Tls(err),
            managed::PoolError::Backend(ConnectError::Postgres(err)) => {
                match crate::tls::certificate_advice(&err) {
                    Some(advice) => Error::Certificate { advice },
                    None => Error::Unavailable,
                }
            }
            _ => Error::Unavailable,
        })?;
        Ok(Lease { object: Some(object) })
    }
}

/// A connection taken from a [`WirePool`]. Dropped without [`Lease::keep`] (after a failure,
/// or when its future was dropped halfway) it closes its connection: whatever state the
/// connection was left in never reaches another request.
pub(crate) struct Lease {
    object: Option<Object<Manager>>,
}

impl Lease {
    fn conn(&self) -> &Conn {
        // Some until keep or drop.
        self.object.as_deref().unwrap_or_else(|| unreachable!("a lease holds its connection"))
    }

    pub(crate) fn client(&self) -> &Client {
        &self.conn().client
    }

    /// The statements `(sql, parameter types)` on this connection, and whether `setup` was
    /// sent. Those the connection has not met yet are prepared now, inside the transaction that
    /// `setup` opens, sent in the same write: a statement is prepared as the reader it runs as
    /// (the runtime login itself may not even look up the planes' schemas). They are kept for
    /// the connection's next requests; should this one fail, its lease closes the connection
    /// and they go with it.
    pub(crate) async fn prepare_all(
        &mut self,
        setup: &str,
        wanted: &[(&str, &[Type])],
    ) -> Result<(Vec<Statement>, bool)> {
        let conn = self.conn();
        let known: Vec<Option<Statement>> =
            wanted.iter().map(|(sql, types)| conn.prepared(sql, types)).collect();
        if known.iter().all(Option::is_some) {
            return Ok((known.into_iter().flatten().collect(), false));
        }
        let client = &conn.client;
        let (begun, prepared) = tokio::join!(
            client.batch_execute(setup),
            join_all(wanted.iter().zip(&known).map(|((sql, types), known)| async move {
                match known {
                    Some(statement) => Ok(statement.clone()),
                    None => client.prepare_typed(sql, types).await,
                }
            })),
        );
        begun?;
        let statements = prepared.into_iter().collect::<Result<Vec<_>, _>>()?;
        let conn = self.object.as_deref_mut().unwrap_or_else(|| unreachable!("held"));
        for (((sql, types), statement), known) in wanted.iter().zip(&statements).zip(&known) {
            if known.is_none() {
                conn.remember(sql, types, statement);
            }
        }
        Ok((statements, true))
    }

    /// The exchange finished cleanly: the connection goes back to the pool.
    pub(crate) fn keep(mut self) {
        drop(self.object.take());
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(object) = self.object.take() {
            drop(Object::take(object));
        }
    }
}

/// One pooled connection: its client and its prepared statements.
pub(crate) struct Conn {
    client: Client,
    /// The SQL text, the parameter types it was prepared with, and the statement. A list
    /// searched in order rather than a hash map: it holds at most the registry's statements (a
    /// few dozen), a text of another length is ruled out at once, and hashing the text
    /// (hundreds of bytes) cost more than the whole search.
    statements: Vec<(String, Vec<Type>, Statement)>,
}

impl Conn {
    fn prepared(&self, sql: &str, types: &[Type]) -> Option<Statement> {
        self.statements
            .iter()
            .find(|(known, prepared_with, _)| known == sql && prepared_with == types)
            .map(|(_, _, statement)| statement.clone())
    }

    /// Keeps `statement`, prepared from `sql` with `types`, for this connection's next
    /// requests (replacing one of the same text prepared with other types).
    fn remember(&mut self, sql: &str, types: &[Type], statement: &Statement) {
        let entry = (sql.to_owned(), types.to_vec(), statement.clone());
        match self.statements.iter_mut().find(|(known, _, _)| known == sql) {
            Some(slot) => *slot = entry,
            None => self.statements.push(entry),
        }
    }
}

/// Why a connection could not be opened.
#[derive(Debug)]
pub(crate) enum ConnectError {
    #[allow(dead_code, reason = "read through Debug in the pool's error")]
    Io(io::Error),
    #[allow(dead_code, reason = "read through Debug in the pool's error")]
    Postgres(tokio_postgres::Error),
    Tls(TlsError),
    #[allow(dead_code, reason = "read through Debug in the pool's error")]
    ServerName(String),
}

pub(crate) struct Manager {
    config: Config,
    /// The TLS client for TCP hosts (`None`: no TLS), or why the URL's settings cannot be served.
    tls: Result<Option<Arc<ClientConfig>>, TlsError>,
    counts: Arc<Counts>,
}

impl Manager {
    /// A socket to the first host that answers, and that host's name when it is a TCP host.
    async fn socket(&self) -> io::Result<(Socket, Option<String>)> {
        let ports = self.config.get_ports();
        let mut last = io::Error::new(io::ErrorKind::InvalidInput, "no host to connect to");
        for (index, host) in self.config.get_hosts().iter().enumerate() {
            let port = ports.get(index).or(ports.first()).copied().unwrap_or(5432);
            let attempt = match host {
                Host::Tcp(name) => tokio::net::TcpStream::connect((name.as_str(), port))
                    .await
                    .and_then(|stream| stream.set_nodelay(true).map(|()| Socket::Tcp(stream)))
                    .map(|socket| (socket, Some(name.clone()))),
                #[cfg(unix)]
                Host::Unix(dir) => {
                    tokio::net::UnixStream::connect(dir.join(format!(".s.PGSQL.{port}")))
                        .await
                        .map(|stream| (Socket::Unix(stream), None))
                }
                #[cfg(not(unix))]
                Host::Unix(_) => Err(io::Error::other("Unix sockets are not supported here")),
            };
            match attempt {
                Ok(socket) => return Ok(socket),
                Err(err) => last = err,
            }
        }
        Err(last)
    }
}

impl managed::Manager for Manager {
    type Type = Conn;
    type Error = ConnectError;

    async fn create(&self) -> Result<Conn, ConnectError> {
        let tls = self.tls.as_ref().map_err(|err| ConnectError::Tls(err.clone()))?;
        let (socket, tcp_host) = self.socket().await.map_err(ConnectError::Io)?;
        let counted = Counted { inner: socket, wrote: false, counts: Arc::clone(&self.counts) };
        let client = match (tls, tcp_host) {
            (Some(config), Some(host)) => {
                let server_name = ServerName::try_from(host.clone())
                    .map_err(|_| ConnectError::ServerName(host))?;
                let tls = RustlsConnect { config: Arc::clone(config), server_name };
                let (client, connection) =
                    self.config.connect_raw(counted, tls).await.map_err(ConnectError::Postgres)?;
                spawn_connection(connection);
                client
            }
            // No TLS, or a Unix socket (never TLS, as in libpq).
            (_, _) => {
                let mut config = self.config.clone();
                config.ssl_mode(tokio_postgres::config::SslMode::Disable);
                let (client, connection) =
                    config.connect_raw(counted, NoTls).await.map_err(ConnectError::Postgres)?;
                spawn_connection(connection);
                client
            }
        };
        self.counts.connections.fetch_add(1, Ordering::Relaxed);
        Ok(Conn { client, statements: Vec::new() })
    }

    async fn recycle(&self, conn: &mut Conn, _: &Metrics) -> RecycleResult<ConnectError> {
        // No round trip: a connection whose task ended is closed; any other failure is seen by
        // the request that meets it, whose lease then closes the connection.
        if conn.client.is_closed() {
            return Err(RecycleError::message("the connection is closed"));
        }
        Ok(())
    }
}

/// Runs a connection's task until the connection ends.
fn spawn_connection<S, T>(connection: tokio_postgres::Connection<S, T>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!(%err, "a pipelined connection ended");
        }
    });
}

/// A TCP or Unix socket.
enum Socket {
    Tcp(tokio::net::TcpStream),
    #[cfg(unix)]
    Unix(tokio::net::UnixStream),
}

/// A socket that counts round trips (see [`WirePool::round_trips`]).
struct Counted {
    inner: Socket,
    wrote: bool,
    counts: Arc<Counts>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = match &mut this.inner {
            Socket::Tcp(stream) => Pin::new(stream).poll_read(cx, buf),
            #[cfg(unix)]
            Socket::Unix(stream) => Pin::new(stream).poll_read(cx, buf),
        };
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before && this.wrote {
            this.wrote = false;
            this.counts.round_trips.fetch_add(1, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = match &mut this.inner {
            Socket::Tcp(stream) => Pin::new(stream).poll_write(cx, buf),
            #[cfg(unix)]
            Socket::Unix(stream) => Pin::new(stream).poll_write(cx, buf),
        };
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.wrote = true;
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Socket::Tcp(stream) => Pin::new(stream).poll_flush(cx),
            #[cfg(unix)]
            Socket::Unix(stream) => Pin::new(stream).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Socket::Tcp(stream) => Pin::new(stream).poll_shutdown(cx),
            #[cfg(unix)]
            Socket::Unix(stream) => Pin::new(stream).poll_shutdown(cx),
        }
    }
}

impl From<tokio_postgres::Error> for Error {
    fn from(error: tokio_postgres::Error) -> Self {
        if let Some(code) = error.code() {
            return crate::error::from_sqlstate(Some(code.code().to_owned()));
        }
        if error.is_closed() {
            return Error::Unavailable;
        }
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            if cause.is::<io::Error>() {
                return Error::Unavailable;
            }
            source = cause.source();
        }
        Error::Database { code: None }
    }
}
