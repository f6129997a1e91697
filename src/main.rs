//! The `reversi` command: parses arguments, runs one library job, prints, maps errors to exit
//! codes (130 for an interrupted count, 2 for bad input, 141 when the reader of its output
//! went away, 1 for anything else).

mod bar;
mod cli;
mod cmd;

use clap::Parser;
use reversi_nxn::board::BoardError;

/// The exit code of a program whose output's reader went away (`reversi perft ... | head`):
/// 128 + SIGPIPE, what the shell reports for the Unix tools that signal kills.
const CLOSED_PIPE: i32 = 141;

fn main() {
    reversi_nxn::memory::return_large_blocks_to_the_system();
    end_quietly_when_the_reader_goes();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                || e.kind() == clap::error::ErrorKind::MissingSubcommand =>
        {
            let names: Vec<String> = <cli::Cli as clap::CommandFactory>::command()
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| c.get_name().to_string())
                .collect();
            eprintln!(
                "Error: no command given; the commands are {} (see --help)",
                names.join(", ")
            );
            std::process::exit(2);
        }
        Err(e) if !e.use_stderr() => e.exit(), // --help and --version
        Err(e) => {
            // One line: clap's message up to its first blank line, without its "error: ".
            let text = e.to_string();
            let message: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let message = message.join(" ");
            eprintln!(
                "Error: {} (see --help)",
                message.trim_start_matches("error: ")
            );
            std::process::exit(2);
        }
    };
    cmd::install_signal_handler();
    if let Some(n) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
        {
            eprintln!("Error: cannot start {n} threads: {e}");
            std::process::exit(1);
        }
    }
    if let Err(e) = cli.command.run() {
        let broken_pipe = e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        });
        if broken_pipe && stdout_reader_gone() {
            std::process::exit(CLOSED_PIPE);
        }
        eprintln!("Error: {e:#}");
        std::process::exit(exit_code(&e));
    }
}

/// Ends the program at once, with no message, when its standard output or error is a pipe
/// whose reader has gone (`reversi positions -n 8 -d 12 | head -3`), as `yes | head` ends.
///
/// Rust ignores SIGPIPE, so a write to such a pipe fails and `println!` panics with a
/// backtrace. SIGPIPE stays ignored (a count over TCP must see a lost peer as an error, not
/// die of the signal); this hook catches only the print macros' panic on a closed pipe, and
/// `main` ends as quietly on an explicit write's broken pipe when stdout's reader is gone
/// ([`stdout_reader_gone`]; a socket's keeps its one-line error). What a command keeps on disk
/// survives it as it survives `kill -9`.
fn end_quietly_when_the_reader_goes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(CLOSED_PIPE);
        }
        default(info);
    }));
}

/// Whether standard output is a pipe whose reader has gone (the write end of such a pipe polls
/// as an error), so that a broken pipe an explicit write met was stdout's (`reversi solve
/// --file F | head -3`) and not a socket's.
fn stdout_reader_gone() -> bool {
    #[cfg(unix)]
    {
        let mut fd = libc::pollfd {
            fd: libc::STDOUT_FILENO,
            events: libc::POLLOUT,
            revents: 0,
        };
        // SAFETY: poll(2) on one valid pollfd, with no wait.
        let ready = unsafe { libc::poll(&mut fd, 1, 0) };
        ready == 1 && fd.revents & libc::POLLERR != 0
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// 130 for a count stopped by Ctrl-C or SIGTERM (its work saved), 2 for input the user can
/// correct (bad board, move, size, flag, memory or disk budget; a checkpoint refused as damaged
/// or foreign, which the user deletes), else 1.
fn exit_code(e: &anyhow::Error) -> i32 {
    let interrupted = e.chain().any(|c| {
        matches!(
            c.downcast_ref::<reversi_nxn::count::CountError>(),
            Some(reversi_nxn::count::CountError::Interrupted { .. })
        ) || matches!(
            c.downcast_ref::<reversi_nxn::perft::PerftError>(),
            Some(reversi_nxn::perft::PerftError::Stopped(_))
        ) || matches!(
            c.downcast_ref::<reversi_nxn::strong::StrongError>(),
            Some(reversi_nxn::strong::StrongError::Stopped)
        ) || matches!(
            c.downcast_ref::<reversi_nxn::proof::ProofError>(),
            Some(reversi_nxn::proof::ProofError::Stopped { .. })
        ) || c.is::<cmd::Interrupted>()
    });
    if interrupted {
        return cmd::INTERRUPTED;
    }
    let bad_input = e.chain().any(|c| {
        c.is::<BoardError>()
            || c.is::<reversi_nxn::memory::MemoryError>()
            || c.is::<cmd::UsageError>()
            || c.is::<reversi_nxn::obf::ObfError>()
            || c.is::<reversi_nxn::lock::LockError>()
            || c.downcast_ref::<reversi_nxn::count::CountError>()
                .is_some_and(reversi_nxn::count::CountError::is_input)
            || c.downcast_ref::<reversi_nxn::perft::PerftError>()
                .is_some_and(reversi_nxn::perft::PerftError::is_input)
            || c.downcast_ref::<reversi_nxn::proof::ProofError>()
                .is_some_and(reversi_nxn::proof::ProofError::is_usage)
            || c.downcast_ref::<reversi_nxn::solve::state::StateError>()
                .is_some_and(reversi_nxn::solve::state::StateError::is_usage)
    });
    if bad_input {
        2
    } else {
        1
    }
}
