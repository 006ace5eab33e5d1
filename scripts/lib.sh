# Shared by the walk-through scripts: a fresh team with an API token, and the curl header arrays.
#   new_team <prefix>   sets TEAM, TOKEN, AGENT, and H (auth + team headers) and J (JSON content type)
new_team() {
  local out
  out=$(npm run -s cli -- bootstrap --team "$1-$RANDOM" "${@:2}")
  TEAM=$(jq -r .team <<<"$out"); TOKEN=$(jq -r .token <<<"$out"); AGENT=$(jq -r .agentId <<<"$out"); EMAIL=$(jq -r .email <<<"$out")
  H=(-H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM")
  J=(-H 'Content-Type: application/json')
}
