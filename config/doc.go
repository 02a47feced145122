// Package config owns arena's one Config struct and the only code that reads
// configuration. No other package looks at files, ARENA_* variables or flags
// for settings; they receive plain values taken from a Config.
//
// # Layers
//
// Load builds the effective configuration in four layers, each one
// overriding the one before it, key by key:
//
//  1. Default(): built-in defaults that run a local devnet out of the box.
//  2. The YAML file named by LoadOptions.Path (the --config flag), if any.
//     Only the keys present in the file change; an empty file changes
//     nothing. An unknown key, a duplicated key or a value of the wrong
//     type is an error naming the file, the line and the full key path, so
//     a typo such as "chain.ulr" never silently falls back to a default.
//     A key whose value is null (for example "address:" with nothing after
//     it) leaves the lower layer's value in place.
//  3. ARENA_* environment variables. Each leaf key maps to one variable:
//     the key path upper-cased, dots replaced by underscores, prefixed with
//     ARENA_ (chain.url -> ARENA_CHAIN_URL, data_dir -> ARENA_DATA_DIR).
//     An ARENA_* variable that matches no key is an error, again to catch
//     typos.
//  4. Overrides from command-line flags, given as key path -> value.
//
// Every layer parses values with the same code: the schema is derived by
// reflection from the struct's yaml tags, and each leaf is set from its text
// form by kind (string, bool, ints, uints, float64, Duration, Secret). Keys
// lists that schema, with each key's environment variable, type and help
// text, so documentation and `arena config keys` can never drift from the
// struct.
//
// # Secrets
//
// keystore.password is a Secret: it prints as "[redacted]" through fmt,
// YAML and JSON, and only Reveal returns its value. It can be set only from
// the environment (ARENA_KEYSTORE_PASSWORD); putting it in a config file or
// passing it as a flag is an error, because files get committed and flags
// show up in process listings. Prefer keystore.password_file.
//
// # Validation
//
// Load only parses. Validate checks the assembled values (URL schemes,
// host:port addresses, ranges, orderings) and reports every problem at
// once, one line per problem, each naming its key.
package config
