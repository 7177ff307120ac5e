#!/bin/bash
# Entrypoint of the planner-postgres image (built by `cargo xtask pg-image`).
#
# Honours POSTGRES_USER (default postgres), POSTGRES_PASSWORD, POSTGRES_DB (default: the user),
# POSTGRES_HOST_AUTH_METHOD, POSTGRES_INITDB_ARGS, and *_FILE for the first three; runs
# /docker-entrypoint-initdb.d/*.sql|*.sql.gz|*.sql.xz|*.sh on first start. A temporary
# socket-only server logs to stdout and the final server to stderr, so "database system is ready
# to accept connections" appears on both streams, as the testcontainers Postgres module expects.
set -Eeo pipefail

if [ "${1:0:1}" = '-' ]; then
	set -- postgres "$@"
fi
if [ "$1" != 'postgres' ]; then
	exec "$@"
fi

file_env() {
	local var="$1" def="${2:-}" file_var="${1}_FILE" val
	val="$def"
	if [ -n "${!file_var:-}" ]; then
		val="$(< "${!file_var}")"
	elif [ -n "${!var:-}" ]; then
		val="${!var}"
	fi
	export "$var"="$val"
	unset "$file_var"
}

if [ "$(id -u)" = '0' ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chown -R postgres:postgres "$PGDATA" /var/run/postgresql
	chmod 700 "$PGDATA"
	chmod 2775 /var/run/postgresql
	exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

file_env POSTGRES_USER postgres
file_env POSTGRES_PASSWORD
file_env POSTGRES_DB "$POSTGRES_USER"
auth="${POSTGRES_HOST_AUTH_METHOD:-}"
if [ -z "$auth" ]; then
	auth="$(postgres -C password_encryption 2>/dev/null || echo scram-sha-256)"
fi
if [ -z "$POSTGRES_PASSWORD" ] && [ "$auth" != 'trust' ]; then
	echo 'error: POSTGRES_PASSWORD is not set; set it, or POSTGRES_HOST_AUTH_METHOD=trust' >&2
	exit 1
fi

first_start=
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	first_start=1
	pwfile=
	if [ -n "$POSTGRES_PASSWORD" ]; then
		pwfile="$(mktemp)"
		printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
	fi
	# shellcheck disable=SC2086
	initdb --no-sync -D "$PGDATA" --username="$POSTGRES_USER" ${pwfile:+--pwfile="$pwfile"} \
		--auth-local=trust --auth-host="$auth" -E UTF8 --locale=C.UTF-8 $POSTGRES_INITDB_ARGS
	[ -n "$pwfile" ] && rm -f "$pwfile"
	printf "\nlisten_addresses = '*'\n" >> "$PGDATA/postgresql.conf"
	printf "\nhost all all all %s\n" "$auth" >> "$PGDATA/pg_hba.conf"
fi

# A temporary server on the socket only, logging to stdout (pg_ctl without -l).
pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start

if [ -n "$first_start" ]; then
	psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres)
	if [ "$POSTGRES_DB" != 'postgres' ]; then
		"${psql[@]}" --set db="$POSTGRES_DB" <<-'SQL'
			CREATE DATABASE :"db";
		SQL
	fi
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sh) if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
			*.sql) "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
			*.sql.gz) gunzip -c "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" ;;
			*.sql.xz) xzcat "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" ;;
			*) ;;
		esac
	done
fi

pg_ctl -D "$PGDATA" -m fast -w stop
exec "$@"
