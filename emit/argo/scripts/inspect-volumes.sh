# inspect-volumes: the read-only first step of delete-and-wait. It settles
# the volume policy (the run's override, or the app's own) for the delete
# step. Snapshots were taken before the first deletion (find-claims).
: "${APP:?}" "${PROJECT:?}" "${VOLUMES:?}" "${VOLUMES_OVERRIDE:?}"
policy=$VOLUMES
if [[ $VOLUMES_OVERRIDE != per-app ]]; then
  policy=$VOLUMES_OVERRIDE
fi
case $policy in
retain | delete | snapshot) ;;
*)
  echo "unknown volume policy \"$policy\": use retain, delete or snapshot" >&2
  exit 1
  ;;
esac
printf %s "$policy" >"$dir/policy"
if ! present; then
  echo "$APP: already gone"
  exit 0
fi
echo "$APP: volume policy $policy"
