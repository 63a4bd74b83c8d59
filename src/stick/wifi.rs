//! The wireless set-up a stick carries (`OPEN-R/SYSTEM/CONF/WLANCONF.TXT`): `KEY=VALUE`
//! lines, `#` comments, as OPEN-R reads them. The AIBO speaks 802.11b: an open network or
//! WEP (no WPA), with DHCP or a fixed address.

use std::net::Ipv4Addr;

/// Where the set-up lies, below the stick's root.
pub const PATH: &str = "OPEN-R/SYSTEM/CONF/WLANCONF.TXT";

/// How the robot gets its address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    Dhcp,
    Fixed {
        ip: Ipv4Addr,
        netmask: Ipv4Addr,
        /// Sony's guides: the address itself where the network has no gateway.
        gateway: Ipv4Addr,
    },
}

/// A wireless set-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wifi {
    pub hostname: String,
    pub essid: String,
    /// `None`: an open network.
    pub wep: Option<String>,
    pub channel: u8,
    pub address: Address,
}

/// Why a set-up is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WifiError {
    #[error("ESSID {0:?}: 1 to 32 printable ASCII characters")]
    Essid(String),
    #[error(
        "WEP key: 5 or 13 characters, or 10 or 26 hexadecimal digits (with or without 0x; \
         the AIBO speaks 802.11b: WEP or an open network, no WPA)"
    )]
    Wep,
    #[error("host name {0:?}: 1 to 32 letters, digits or -")]
    Hostname(String),
    #[error("channel {0}: 1 to 14")]
    Channel(u8),
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
}

fn printable(s: &str) -> bool {
    s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// A WEP key as the owner gives it, in the form OPEN-R takes: a router shows a hex key
/// as bare digits (10 for WEP-40, 26 for WEP-104), which OPEN-R wants after `0x`. (A
/// text key has 5 or 13 characters, so 10 or 26 can only be digits.)
pub fn wep_key(given: &str) -> String {
    let bare_hex = matches!(given.len(), 10 | 26) && given.bytes().all(|b| b.is_ascii_hexdigit());
    if bare_hex {
        format!("0x{given}")
    } else {
        given.to_string()
    }
}

/// Whether `key` is a WEP key OPEN-R takes.
pub fn valid_wep(key: &str) -> bool {
    match key.strip_prefix("0x").or_else(|| key.strip_prefix("0X")) {
        Some(hex) => matches!(hex.len(), 10 | 26) && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => matches!(key.len(), 5 | 13) && printable(key),
    }
}

impl Wifi {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), WifiError> {
        if !(1..=32).contains(&self.essid.len()) || !printable(&self.essid) {
            return Err(WifiError::Essid(self.essid.clone()));
        }
        if self.wep.as_deref().is_some_and(|k| !valid_wep(k)) {
            return Err(WifiError::Wep);
        }
        let host_ok = (1..=32).contains(&self.hostname.len())
            && self
                .hostname
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !host_ok {
            return Err(WifiError::Hostname(self.hostname.clone()));
        }
        if !(1..=14).contains(&self.channel) {
            return Err(WifiError::Channel(self.channel));
        }
        Ok(())
    }

    /// What the robot will join, in words: `joins "home" (address by DHCP)`.
    pub fn joins(&self) -> String {
        let address = match self.address {
            Address::Dhcp => "address by DHCP".to_string(),
            Address::Fixed { ip, .. } => format!("address {ip}"),
        };
        format!("joins {:?} ({address})", self.essid)
    }

    /// The file's text.
    pub fn encode(&self) -> String {
        let mut t = String::from("# Written by aibo-motion stick wifi\n#\n# WLAN\n#\n");
        t.push_str(&format!(
            "HOSTNAME={}\nESSID={}\n",
            self.hostname, self.essid
        ));
        match &self.wep {
            Some(key) => t.push_str(&format!("WEPENABLE=1\nWEPKEY={key}\n")),
            None => t.push_str("WEPENABLE=0\n"),
        }
        t.push_str(&format!(
            "# 0=ad-hoc ; 1=infrastructure ; 2=inf || ad\nAPMODE=1\nCHANNEL={}\n#\n# IP network\n#\n",
            self.channel
        ));
        match &self.address {
            Address::Dhcp => t.push_str("USE_DHCP=1\n"),
            Address::Fixed {
                ip,
                netmask,
                gateway,
            } => t.push_str(&format!(
                "USE_DHCP=0\nETHER_IP={ip}\nETHER_NETMASK={netmask}\nIP_GATEWAY={gateway}\n"
            )),
        }
        t
    }
}

/// Reads a set-up: the keys above, others ignored (kept by OPEN-R for itself).
pub fn decode(bytes: &[u8]) -> Result<Wifi, WifiError> {
    let mut get = std::collections::BTreeMap::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = String::from_utf8_lossy(raw);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(WifiError::Line {
                line: i + 1,
                why: format!(
                    "expected KEY=VALUE, found {:?}",
                    crate::source::text::excerpt(raw)
                ),
            });
        };
        get.insert(key.trim().to_string(), (i + 1, value.trim().to_string()));
    }
    let value = |k: &str| get.get(k).map(|(_, v)| v.clone());
    let ip = |k: &str| -> Result<Ipv4Addr, WifiError> {
        let (line, v) = get.get(k).cloned().ok_or_else(|| WifiError::Line {
            line: 0,
            why: format!("{k} missing for a fixed address"),
        })?;
        v.parse().map_err(|_| WifiError::Line {
            line,
            why: format!("{k}: {v:?} is not an IPv4 address"),
        })
    };
    let address = if value("USE_DHCP").as_deref() == Some("0") {
        let ip_addr = ip("ETHER_IP")?;
        Address::Fixed {
            ip: ip_addr,
            netmask: ip("ETHER_NETMASK")?,
            gateway: ip("IP_GATEWAY").unwrap_or(ip_addr),
        }
    } else {
        Address::Dhcp
    };
    let wifi = Wifi {
        hostname: value("HOSTNAME").unwrap_or_else(|| "AIBO".into()),
        essid: value("ESSID").unwrap_or_default(),
        wep: (value("WEPENABLE").as_deref() == Some("1"))
            .then(|| value("WEPKEY").unwrap_or_default()),
        channel: value("CHANNEL").and_then(|c| c.parse().ok()).unwrap_or(3),
        address,
    };
    wifi.validate()?;
    Ok(wifi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_up_writes_and_reads_back() {
        for address in [
            Address::Dhcp,
            Address::Fixed {
                ip: Ipv4Addr::new(192, 168, 10, 100),
                netmask: Ipv4Addr::new(255, 255, 255, 0),
                gateway: Ipv4Addr::new(192, 168, 10, 1),
            },
        ] {
            for wep in [
                None,
                Some("AIBO2".to_string()),
                Some("0xAD4278E4A4".to_string()),
            ] {
                let w = Wifi {
                    hostname: "AIBO".into(),
                    essid: "home net".into(),
                    wep,
                    channel: 3,
                    address: address.clone(),
                };
                w.validate().unwrap();
                assert_eq!(decode(w.encode().as_bytes()).unwrap(), w);
            }
        }
    }

    #[test]
    fn what_the_aibo_cannot_join_is_refused() {
        for key in [
            "AIBO",
            "0x123",
            "0xZZ4278E4A4",
            "twelve chars",
            "a-wpa-passphrase",
        ] {
            assert!(!valid_wep(key), "{key}");
        }
        for key in [
            "AIBO2",
            "thirteen char",
            "0x0123456789",
            "0x0123456789abcdef0123456789",
        ] {
            assert!(valid_wep(key), "{key}");
        }
        // As a router shows a hex key: bare digits.
        assert_eq!(wep_key("0123456789"), "0x0123456789");
        assert_eq!(
            wep_key("0123456789ABCDEF0123456789"),
            "0x0123456789ABCDEF0123456789"
        );
        assert_eq!(wep_key("AIBO2"), "AIBO2");
        assert_eq!(wep_key("0x0123456789"), "0x0123456789");
        let e = decode(b"ESSID=x\nUSE_DHCP=0\nETHER_IP=10.0.0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: ETHER_IP: \"10.0.0\" is not an IPv4 address"
        );
        assert!(decode(b"HOSTNAME=AIBO\n").is_err(), "no ESSID");
    }
}
