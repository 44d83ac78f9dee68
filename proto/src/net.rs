//! What counts as a public address, for the webhook SSRF guard: the core checks IP-literal URLs
//! when an endpoint is saved and workers check every resolved address at connect time. Pure
//! logic, shared so both sides agree.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// True for addresses a webhook may be delivered to: not loopback, private, link-local, CGNAT,
/// multicast, reserved, documentation or benchmarking ranges, in IPv4 or any IPv6 form that
/// embeds IPv4 (mapped, compatible, 6to4, NAT64), and IPv6 only within global unicast.
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0                                   // "this" network
        || a == 10                             // private
        || a == 127                            // loopback
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64/10
        || (a == 169 && b == 254)              // link-local
        || (a == 172 && (16..32).contains(&b))  // private
        || (a == 192 && b == 0 && c == 0)      // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)      // TEST-NET-1
        || (a == 192 && b == 88 && c == 99)    // 6to4 relay anycast
        || (a == 192 && b == 168)              // private
        || (a == 198 && (b == 18 || b == 19))  // benchmarking
        || (a == 198 && b == 51 && c == 100)   // TEST-NET-2
        || (a == 203 && b == 0 && c == 113)    // TEST-NET-3
        || a >= 224) // multicast, reserved, broadcast
}

fn embedded_v4(segments: [u16; 8], from: usize) -> Ipv4Addr {
    let hi = segments[from];
    let lo = segments[from + 1];
    Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d (and :: and ::1).
    if s[..5] == [0, 0, 0, 0, 0] && (s[5] == 0xffff || s[5] == 0) {
        return s[5] == 0xffff && is_public_v4(embedded_v4(s, 6));
    }
    // NAT64 well-known prefix 64:ff9b::/96 embeds IPv4; the local-use 64:ff9b:1::/48 is private.
    if s[0] == 0x64 && s[1] == 0xff9b {
        return s[2..6] == [0, 0, 0, 0] && is_public_v4(embedded_v4(s, 6));
    }
    // 6to4 2002::/16 embeds IPv4 in the next 32 bits.
    if s[0] == 0x2002 {
        return is_public_v4(embedded_v4(s, 1));
    }
    // Only global unicast 2000::/3 is public...
    if s[0] & 0xe000 != 0x2000 {
        return false;
    }
    // ...less Teredo 2001::/32, ORCHID and benchmarking 2001:2::/48, and documentation
    // 2001:db8::/32 and 3fff::/20.
    !((s[0] == 0x2001 && s[1] == 0)
        || (s[0] == 0x2001 && s[1] == 2 && s[2] == 0)
        || (s[0] == 0x2001 && (0x10..0x30).contains(&s[1]))
        || (s[0] == 0x2001 && s[1] == 0xdb8)
        || (s[0] == 0x3fff && s[1] < 0x1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str) -> bool {
        is_public_ip(text.parse().unwrap())
    }

    #[test]
    fn private_and_special_ipv4_ranges_are_not_public() {
        for ip in [
            "0.0.0.0",
            "10.1.2.3",
            "127.0.0.1",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.51.100.2",
            "203.0.113.3",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!public(ip), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.0",
            "172.32.0.1",
            "93.184.216.34",
        ] {
            assert!(public(ip), "{ip}");
        }
    }

    #[test]
    fn ipv6_forms_of_private_ipv4_and_special_ipv6_ranges_are_not_public() {
        for ip in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "64:ff9b::a00:1",
            "64:ff9b::7f00:1",
            "64:ff9b:1::1",
            "2002:7f00:1::",
            "2002:a00:1::1",
            "2001:db8::1",
            "2001::1",
            "fec0::1",
            "100::1",
        ] {
            assert!(!public(ip), "{ip}");
        }
        for ip in [
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert!(public(ip), "{ip}");
        }
    }
}
