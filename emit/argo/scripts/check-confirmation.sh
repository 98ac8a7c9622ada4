# check-confirmation: teardown must never run on defaults alone (RFC 7.2).
: "${PLATFORM:?}"
if [[ ${CONFIRM:-} != "$PLATFORM" ]]; then
  echo "teardown of platform $PLATFORM is not confirmed: set the parameter confirm to the platform's name" >&2
  exit 1
fi
echo "teardown of platform $PLATFORM confirmed"
