package dataset

// Test-only access to the pipeline's decoders.
var (
	DecodeEpisode = decodeEpisode
	DecodeVerdict = decodeVerdict
)
