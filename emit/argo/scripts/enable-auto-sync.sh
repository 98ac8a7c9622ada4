# enable-auto-sync: switch on the steady-state sync policy an app asks for,
# through the API server (RBAC action "update" on exactly these apps). The
# root app ignores /spec/syncPolicy/automated in its children, so this is
# not reverted.
: "${APP:?}" "${SELF_HEAL:?}" "${PRUNE:?}"
echo "$APP: turning on automated sync (self-heal $SELF_HEAL, prune $PRUNE)"
argocd_call app set "$APP" --sync-policy automated --self-heal="$SELF_HEAL" --auto-prune="$PRUNE"
