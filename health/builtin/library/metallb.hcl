# MetalLB. Argo CD has no check for any metallb.io kind.
#
# MetalLB's admission webhook rejects an invalid pool or advertisement, so
# once one is applied there is nothing left to wait for: neither kind has
# a Progressing state. MetalLB before v0.15 (the example platform runs
# chart 0.14.8) writes no status at all.

# IPAddressPool: from v0.15 MetalLB counts the pool's addresses in its
# status. A pool with nothing assigned and nothing available has no
# usable address at all (for example a /32 that avoidBuggyIPs excludes):
# Degraded. A pool whose addresses are all assigned stays Healthy, with
# the counts in the message.
health "metallb.io/IPAddressPool" {
  degraded = (
    obj.status.availableIPv4 == 0 && obj.status.availableIPv6 == 0 &&
    obj.status.assignedIPv4 == 0 && obj.status.assignedIPv6 == 0
  )
  healthy = true
  message = "%{if obj.status.availableIPv4 == null}addresses validated on admission (MetalLB before v0.15 reports no pool status)%{else}${obj.status.availableIPv4} IPv4 and ${obj.status.availableIPv6} IPv6 addresses free, ${obj.status.assignedIPv4} and ${obj.status.assignedIPv6} assigned%{endif}"
  # IPAddressPool status has no observedGeneration.
  observed_generation = false

  test "no-status-before-v0.15" {
    object       = "testdata/metallb.io/IPAddressPool/no-status.yaml"
    want         = "Healthy"
    want_message = "addresses validated on admission (MetalLB before v0.15 reports no pool status)"
  }
  test "addresses-free" {
    object       = "testdata/metallb.io/IPAddressPool/in-use.yaml"
    want         = "Healthy"
    want_message = "47 IPv4 and 0 IPv6 addresses free, 4 and 0 assigned"
  }
  test "exhausted" {
    object       = "testdata/metallb.io/IPAddressPool/exhausted.yaml"
    want         = "Healthy"
    want_message = "0 IPv4 and 0 IPv6 addresses free, 2 and 0 assigned"
  }
  test "no-usable-address" {
    object       = "testdata/metallb.io/IPAddressPool/empty.yaml"
    want         = "Degraded"
    want_message = "0 IPv4 and 0 IPv6 addresses free, 0 and 0 assigned"
  }
}

# L2Advertisement has no status in any MetalLB release: it is in force as
# soon as the API server accepts it.
health "metallb.io/L2Advertisement" {
  healthy             = true
  message             = "in force once accepted (MetalLB reports no status for L2 advertisements)"
  observed_generation = false

  test "applied" {
    object       = "testdata/metallb.io/L2Advertisement/applied.yaml"
    want         = "Healthy"
    want_message = "in force once accepted (MetalLB reports no status for L2 advertisements)"
  }
}
