//! What a log says about the software and network around the runs: the collective library
//! (NCCL or RCCL) and its version, the network plugin NCCL chose, and the settings the run
//! forced (`NCCL_ALGO`, `NCCL_PROTO`). Read from NCCL_DEBUG, launcher and header lines; each
//! lookup is a bounded number of substring searches, so a line costs time linear in its length.

use serde::{Deserialize, Serialize};

/// Longest value kept of a setting or version (characters).
const VALUE_CHARS: usize = 48;

/// The collective library that ran the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Library {
    Nccl,
    /// AMD's fork for ROCm: the model does not cover its algorithms or tuning.
    Rccl,
}

impl Library {
    pub fn name(self) -> &'static str {
        match self {
            Library::Nccl => "NCCL",
            Library::Rccl => "RCCL",
        }
    }
}

/// The network transport NCCL used between nodes, as NCCL_DEBUG=INFO names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetPlugin {
    /// `NET/IB`: RDMA verbs (InfiniBand or RoCE).
    Ib,
    /// `NET/Socket`: TCP sockets (Ethernet, or IP over InfiniBand).
    Socket,
    /// `NET/OFI` / AWS libfabric: the aws-ofi-nccl plugin over EFA.
    Ofi,
    /// Google's GPUDirect-TCPX / TCPXO (FasTrak) plugins.
    Tcpx,
}

impl NetPlugin {
    pub fn name(self) -> &'static str {
        match self {
            NetPlugin::Ib => "NET/IB (RDMA)",
            NetPlugin::Socket => "NET/Socket (TCP)",
            NetPlugin::Ofi => "AWS libfabric (NET/OFI, EFA)",
            NetPlugin::Tcpx => "GPUDirect-TCPX/TCPXO",
        }
    }
}

/// The facts found so far; later lines refine earlier ones where NCCL is more explicit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    pub library: Option<Library>,
    pub library_version: Option<String>,
    pub net: Option<NetPlugin>,
    /// The net came from NCCL's own "Using network X" line (wins over plugin load lines).
    net_chosen: bool,
    /// `NCCL_ALGO` / `NCCL_PROTO` as the log sets them (`Ring`, `^NVLS`, `LL128`).
    pub algo: Option<String>,
    pub proto: Option<String>,
    /// EFA interfaces aws-ofi-nccl found (`NET/OFI Selected Provider is efa (found 32 nics)`).
    pub efa_nics: Option<u32>,
    /// The socket transport ran over an IP-over-InfiniBand interface (`NET/Socket : Using
    /// [0]ib0:...`): an InfiniBand cluster whose NCCL fell back to sockets. (`NET/IB : No
    /// device found` alone is not: every Ethernet-only node prints it.)
    pub socket_on_ib: bool,
}

/// The token after `at` in `s`: letters, digits and `.+-_,^:` up to [`VALUE_CHARS`].
fn token(s: &str) -> Option<String> {
    let t: String = s.chars().take_while(|c| c.is_ascii_alphanumeric() || ".+-_,^".contains(*c)).take(VALUE_CHARS).collect();
    (!t.is_empty()).then_some(t)
}

/// The value of `key` set in `s`: `KEY=value` (a command line, `-x KEY=value`) or NCCL's
/// `KEY set by environment to value`.
fn setting(s: &str, key: &str) -> Option<String> {
    let rest = &s[s.find(key)? + key.len()..];
    if let Some(v) = rest.strip_prefix('=') {
        return token(v.trim_start_matches(['"', '\'']));
    }
    token(rest.strip_prefix(" set by environment to ")?.trim_start())
}

/// nccl-tests' `nccl-library=22105` (major*10000 + minor*100 + patch) as `2.21.5`.
fn library_code(s: &str) -> Option<String> {
    let rest = &s[s.find("nccl-library=")? + "nccl-library=".len()..];
    let code: u32 = rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    (code >= 10000).then(|| format!("{}.{}.{}", code / 10000, code / 100 % 100, code % 100))
}

impl Facts {
    /// Notes what `s` (one line, launcher prefix removed) says.
    pub fn note(&mut self, s: &str) {
        for (mark, lib) in [("RCCL version", Library::Rccl), ("NCCL version", Library::Nccl)] {
            if let Some(i) = s.find(mark) {
                // RCCL's own lines also say "NCCL version" in places: RCCL wins.
                if self.library != Some(Library::Rccl) || lib == Library::Rccl {
                    self.library = Some(lib);
                    let v = token(s[i + mark.len()..].trim_start_matches([' ', ':']));
                    self.library_version = v.or(self.library_version.take());
                }
                break;
            }
        }
        if self.library.is_none() && (s.contains("rccl-tests") || s.contains("RCCL")) {
            self.library = Some(Library::Rccl);
        }
        if self.library_version.is_none() {
            if let Some(v) = library_code(s) {
                self.library_version = Some(v);
                self.library.get_or_insert(Library::Nccl);
            }
        }
        if let Some(i) = s.find("Using network ") {
            let name = s[i + "Using network ".len()..].to_ascii_lowercase();
            let net = if name.starts_with("ib") {
                Some(NetPlugin::Ib)
            } else if name.starts_with("socket") {
                Some(NetPlugin::Socket)
            } else if name.contains("libfabric") || name.contains("ofi") || name.contains("efa") {
                Some(NetPlugin::Ofi)
            } else if name.contains("tcpx") || name.contains("fastrak") {
                Some(NetPlugin::Tcpx)
            } else {
                None
            };
            if net.is_some() {
                (self.net, self.net_chosen) = (net, true);
            }
        } else if !self.net_chosen {
            let seen = if s.contains("NET/OFI") || s.contains("Libfabric") || s.contains("libfabric") {
                Some(NetPlugin::Ofi)
            } else if s.contains("TCPX") || s.contains("FasTrak") || s.contains("NET/GPUDirectTCPX") {
                Some(NetPlugin::Tcpx)
            } else if s.contains("NET/IB : Using") || s.contains("NET/IB: Using") {
                Some(NetPlugin::Ib)
            } else if s.contains("NET/Socket : Using") || s.contains("NET/Socket: Using") {
                Some(NetPlugin::Socket)
            } else {
                None
            };
            // A plugin (OFI, TCPX) outranks the built-in transports NCCL also initialises;
            // IB outranks the socket transport NCCL falls back to.
            let rank = |n: Option<NetPlugin>| match n {
                Some(NetPlugin::Ofi | NetPlugin::Tcpx) => 3,
                Some(NetPlugin::Ib) => 2,
                Some(NetPlugin::Socket) => 1,
                None => 0,
            };
            if rank(seen) > rank(self.net) {
                self.net = seen;
            }
        }
        if let Some(i) = s.find("(found ").filter(|_| s.contains("NET/OFI")) {
            let n = s[i + "(found ".len()..].split(|c: char| !c.is_ascii_digit()).next().and_then(|d| d.parse().ok());
            self.efa_nics = n.filter(|&n| n >= 1 && n <= crate::limits::NICS_PER_NODE.max as u32).or(self.efa_nics);
        }
        for mark in ["NET/Socket : Using [0]", "NET/Socket: Using [0]"] {
            if let Some(i) = s.find(mark) {
                // ib0, ibp12s0, ibs1: the IPoIB interfaces' names.
                if s[i + mark.len()..].starts_with("ib") {
                    self.socket_on_ib = true;
                }
            }
        }
        if s.contains("NCCL_ALGO") {
            if let Some(v) = setting(s, "NCCL_ALGO") {
                self.algo = Some(v);
            }
        }
        if s.contains("NCCL_PROTO") {
            if let Some(v) = setting(s, "NCCL_PROTO") {
                self.proto = Some(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(lines: &[&str]) -> Facts {
        let mut f = Facts::default();
        for l in lines {
            f.note(l);
        }
        f
    }

    #[test]
    fn library_and_version() {
        let f = facts(&["node1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4"]);
        assert_eq!((f.library, f.library_version.as_deref()), (Some(Library::Nccl), Some("2.21.5+cuda12.4")));
        let f = facts(&["RCCL version 2.20.5+hip6.2 HEAD:abc", "NCCL version 2.20.5"]);
        assert_eq!((f.library, f.library_version.as_deref()), (Some(Library::Rccl), Some("2.20.5+hip6.2")));
        let f = facts(&["# nccl-tests version 2.13.11 nccl-headers=22105 nccl-library=22703"]);
        assert_eq!((f.library, f.library_version.as_deref()), (Some(Library::Nccl), Some("2.27.3")));
    }

    #[test]
    fn network_plugin() {
        assert_eq!(facts(&["h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>"]).net, Some(NetPlugin::Ib));
        let f = facts(&["NCCL INFO NET/IB : No device found.", "NCCL INFO NET/Socket : Using [0]ib0:192.168.1.2<0>"]);
        assert_eq!(f.net, Some(NetPlugin::Socket));
        assert_eq!(facts(&["NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)", "NCCL INFO NET/Socket : Using [0]ens32"]).net, Some(NetPlugin::Ofi));
        assert_eq!(facts(&["NCCL INFO NET/IB : Using [0]mlx5_0", "NCCL INFO Using network Socket"]).net, Some(NetPlugin::Socket));
        assert_eq!(facts(&["NCCL INFO Using network AWS Libfabric"]).net, Some(NetPlugin::Ofi));
        assert_eq!(facts(&["NCCL INFO NET/GPUDirectTCPX ver. 3.1.8."]).net, Some(NetPlugin::Tcpx));
        // The interface count aws-ofi-nccl reports, and sockets over IPoIB.
        assert_eq!(facts(&["NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)"]).efa_nics, Some(32));
        assert!(facts(&["NCCL INFO NET/Socket : Using [0]ib0:192.168.1.2<0>"]).socket_on_ib);
        assert!(!facts(&["NCCL INFO NET/IB : No device found.", "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>"]).socket_on_ib);
    }

    #[test]
    fn forced_settings() {
        let f = facts(&["mpirun -x NCCL_ALGO=CollNet -x NCCL_PROTO='Simple' ./all_reduce_perf", "h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring"]);
        assert_eq!((f.algo.as_deref(), f.proto.as_deref()), (Some("Ring"), Some("Simple")));
        assert_eq!(facts(&["NCCL_ALGO"]).algo, None);
    }
}
