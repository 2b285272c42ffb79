//! Who runs a turn: the host's name, the process id and the process's start time, so a turn
//! left `running` by a process that is gone is seen as stopped at once on the same host, and
//! after its lease on any other.

use std::sync::OnceLock;

/// This process, as an owner's text: `host/pid/start`.
pub fn me() -> &'static str {
    static ME: OnceLock<String> = OnceLock::new();
    ME.get_or_init(|| {
        let pid = std::process::id();
        format!("{}/{pid}/{}", host_name(), start_time(pid).unwrap_or(0))
    })
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty() && !h.contains('/'))
        .unwrap_or_else(|| "host".to_string())
}

/// The process's start time in clock ticks since boot (field 22 of `/proc/PID/stat`).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: the fields start after the last `)`.
    let (_, after) = stat.rsplit_once(')')?;
    after.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the owner `owner` is known to be gone: a process of this host that no longer runs
/// (or whose id a newer process has taken). `None` when it cannot be told from here.
pub fn gone(owner: &str) -> Option<bool> {
    let mut parts = owner.rsplitn(3, '/');
    let start: u64 = parts.next()?.parse().ok()?;
    let pid: u32 = parts.next()?.parse().ok()?;
    let host = parts.next()?;
    if host != host_name() || start == 0 {
        return None;
    }
    Some(start_time(pid) != Some(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_not_gone_and_a_finished_one_is() {
        assert_eq!(gone(me()), Some(false));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_time(pid);
        let _ = child.wait();
        let owner = format!("{}/{pid}/{}", host_name(), start.unwrap_or(1));
        assert_eq!(gone(&owner), Some(true));
        assert_eq!(gone("elsewhere/1/1"), None);
    }
}
