//! How the processes of a dataflow count find each other: the workers and processes asked for,
//! the hostfile, and what a lost peer looks like.

/// What the first lost connection to a peer said, kept by the panic hook for the error.
static LOST_PEER: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Where the processes of a dataflow count are and how many workers each runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataflow {
    /// Worker threads in each process.
    pub workers: usize,
    /// This process's index, `0..hosts.len()` (0 when `hosts` is empty).
    pub process: usize,
    /// `host:port` of every process, in process order; empty for one process.
    pub hosts: Vec<String>,
}

impl Dataflow {
    /// Processes in the computation.
    #[must_use]
    pub fn processes(&self) -> usize {
        self.hosts.len().max(1)
    }

    /// Workers in the computation.
    #[must_use]
    pub fn peers(&self) -> usize {
        self.processes() * self.workers
    }
}

/// Reads a hostfile: one `host:port` per process, in process order; blank lines and lines that
/// start with `#` are skipped.
///
/// # Errors
///
/// A one-line message naming the file and the line that does not parse.
pub fn read_hostfile(path: &std::path::Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("hostfile {}: cannot read it ({e})", path.display()))?;
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let ok = line.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && !host.contains(char::is_whitespace) && port.parse::<u16>().is_ok()
        });
        if !ok {
            return Err(format!(
                "hostfile {} line {}: {line:?} is not host:port (a port from 0 to 65535)",
                path.display(),
                i + 1
            ));
        }
        hosts.push(line.to_string());
    }
    if hosts.is_empty() {
        return Err(format!("hostfile {}: no host:port lines", path.display()));
    }
    Ok(hosts)
}

/// The first message of timely's communication threads, kept by [`quiet_timely_panics`].
pub(super) fn lost_peer_message() -> Option<String> {
    LOST_PEER.lock().ok()?.clone()
}

/// Timely stops a computation whose peer went away by panicking in its network threads and
/// then in every worker; those panics are kept (the first message is reported once, in one
/// line) rather than printed with a backtrace hint by each thread. Other panics print as
/// usual.
pub(super) fn quiet_timely_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| {
                    info.payload()
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_string())
                })
                .unwrap_or_default();
            if msg.contains("timely communication error") || msg.contains("poisoned") {
                if let Ok(mut first) = LOST_PEER.lock() {
                    // The network thread's message says what happened; a worker's only that
                    // its queue was poisoned.
                    let better = msg.contains("timely communication error")
                        && !first.as_ref().is_some_and(|m| m.contains("communication"));
                    if first.is_none() || better {
                        *first = Some(msg);
                    }
                }
            } else {
                default(info);
            }
        }));
    });
}
