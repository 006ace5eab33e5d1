#!/usr/bin/env bash
# The "MCP" walk-through of README.md, in a fresh team, against `npm start`:
#   bash scripts/mcp-walkthrough.sh            (or TAP_URL=http://host:port, or that URL as $1)
# An SDK client given only the MCP URL signs in (curl plays the browser), then JSON-RPC by hand:
# the live catalog, a pending sensitive write approved over HTTP, credits. Needs curl and jq, and
# port 8976 free (the SDK client's OAuth callback). Stops at the first call that fails.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
MCP="$BASE/mcp"
PASSWORD='correct horse battery staple'
TAP_PASSWORD="$PASSWORD" new_team mcp --email "mia-$RANDOM$RANDOM@example.com"
echo "# Team $TEAM, agent $AGENT"
A=(-H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json')
rpc() {
  local out
  out=$(req "$MCP" "${A[@]}" -H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM" -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":${2:-{\}}}") || exit 1
  check "MCP $1" '.result != null' "$out"
  printf '%s\n' "$out"
}
call() { rpc tools/call "{\"name\":\"$1\",\"arguments\":${2:-{\}}}" | jq -c '.result.structuredContent'; }

echo '# 1. No credential: 401, and the header that starts discovery'
HEAD=$(curl -sS -o /dev/null -D - "$MCP" "${A[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | tr -d '\r')
grep -iE '^(HTTP|www-authenticate)' <<<"$HEAD"
grep -qiE '^www-authenticate: Bearer .*resource_metadata=' <<<"$HEAD" || fail "no WWW-Authenticate with resource_metadata: $HEAD"

echo '# 2. The SDK client with only the MCP URL: discovery, registration, PKCE; curl signs in for the browser'
STORE_DIR=$(mktemp -d)   # the client's registration and tokens (mcp-connect.json), fresh each run
LOG="$STORE_DIR/connect.log"
DATA_DIR="$STORE_DIR" npm run -s mcp:connect -- "$MCP" > "$LOG" 2>&1 &
CONNECT=$!
trap 'kill "$CONNECT" 2> /dev/null || true; rm -rf "$STORE_DIR"' EXIT
for _ in $(seq 300); do
  grep -q '/oauth/authorize?' "$LOG" && break
  kill -0 "$CONNECT" 2> /dev/null || fail "npm run mcp:connect exited before printing a sign-in link: $(cat "$LOG")"
  sleep 0.2
done
AUTHZ=$(grep -o 'http[^ ]*/oauth/authorize?[^ ]*' "$LOG") || fail "npm run mcp:connect printed no sign-in link within 60 s: $(cat "$LOG")"
echo "$AUTHZ" | cut -c1-120
CALLBACK=$(sign_in_and_allow "$BASE" "$AUTHZ" "$EMAIL" "$PASSWORD")
req "$CALLBACK"
wait "$CONNECT" || fail "npm run mcp:connect failed: $(cat "$LOG")"
cat "$LOG"
grep -q '^svc_agent_info → {' "$LOG" || fail "the SDK client did not call svc_agent_info"

echo '# 3. The live catalog: core tools, then an app installed through the API'
rpc tools/list | jq -c '[.result.tools[].name]'
req -X PUT "$API/apps/artifacts" "${H[@]}" | jq -c '{slug, installed}'
TOOLS=$(rpc tools/list | jq -c '[.result.tools[].name]')
echo "$TOOLS"
check 'the catalog after installing artifacts' 'index("create_artifact") != null' "$TOOLS"

echo '# 4. Tools over the same services as the HTTP API (and their error codes)'
ART=$(call create_artifact '{"title":"Proposal","type":"offer","url":"https://example.com/p"}')
echo "$ART"; ART_ID=$(jq -er .id <<<"$ART")
NOPE=$(call get_artifact '{"artifactId":"art_nope"}')
echo "$NOPE"
check 'get_artifact of an unknown id' '.error.code == "not_found"' "$NOPE"

echo '# 5. Manual mode: a sensitive write waits for a person; a retry finds the same execution'
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"manual"}' | jq -c '{mode}'
PENDING=$(call delete_artifact "{\"artifactId\":\"$ART_ID\"}"); echo "$PENDING"
check 'delete_artifact in manual mode' '.pending == true' "$PENDING"
EXEC=$(jq -er .executionId <<<"$PENDING")
AGAIN=$(call delete_artifact "{\"artifactId\":\"$ART_ID\"}" | jq -c '{executionId}')
echo "$AGAIN"
check 'the same call again' ".executionId == \"$EXEC\"" "$AGAIN"
req -X POST "$API/warp-executions/$EXEC/approve" "${H[@]}" "${J[@]}" -d '{}' | jq -c '{status}'
poll 30 '.status == "succeeded" or .status == "failed"' "$API/warp-executions/$EXEC" "${H[@]}" > /dev/null
CHECKED=$(call check_warp_executions "{\"executionIds\":[\"$EXEC\"]}" | jq -c '.executions[] | {id, warp, status, result}')
echo "$CHECKED"
check 'the approved delete' '.status == "succeeded" and .result.deleted == true' "$CHECKED"
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"auto"}' | jq -c '{mode}'

echo '# 6. Credits: reads 1, writes 2, per billing cycle'
CREDITS=$(req "$API/credits" "${H[@]}")
echo "$CREDITS"
check 'the credits' '.used > 0 and .refused == 0' "$CREDITS"
echo "OK mcp walk-through: an SDK client signed in from the MCP URL alone, the catalog grew with an installed app, a manual-mode delete waited for approval and then ran, and credits were counted"
