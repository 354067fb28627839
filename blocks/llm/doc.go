// Package llm runs the llm blocks and the llm built-in against one
// OpenAI-compatible chat completions server (OpenAI, Ollama, vLLM,
// OpenRouter, Groq, …), as docs/design.md ("Language models") describes.
//
// One Executor serves both the llm built-in (whose prompt, system,
// messages, model, temperature, top_p, seed, stop and max_tokens are
// inputs) and user blocks with
// runtime = "llm" (whose prompt and system are HCL templates over input.*,
// evaluated here with the function table of package lang). Register the
// same Executor for both, so that they share its limits:
//
//	ex := llm.NewExecutor(cfg)
//	executors.Builtins["llm"] = ex
//	executors.Runtimes[lang.RuntimeLLM] = ex
//
// The files follow the path of a call:
//
//   - config.go: Config and ConfigFromEnv (OPENAI_API_KEY, OPENAI_BASE_URL,
//     FLOWCTL_MODEL, FLOWCTL_LLM_CONCURRENCY, FLOWCTL_LLM_RPM,
//     FLOWCTL_EMBEDDINGS_MODEL).
//   - executor.go: the Executor; building the messages, the structured
//     output loop with its re-asks, and the fall-back from json_schema to
//     JSON mode for servers that do not support it.
//   - schema.go: the JSON schema sent as response_format, made from the
//     declared output types.
//   - parse.go: lenient parsing of replies (markdown fences, prose around
//     the object, trailing commas) and the check against the output types,
//     whose messages carry a path such as .bullets[1].
//   - client.go: the transport: concurrency and requests-per-minute limits
//     shared by every step, retries with backoff honouring Retry-After, and
//     errors that say what to do.
//   - tokens.go: counting a prompt's tokens before it is sent (tiktoken's
//     encodings, embedded; cl100k_base as an estimate for other models)
//     and the tokens-per-minute limit of a provider (tpm).
//   - provider.go: the transports to the providers flows declare
//     (blocks.Call.Provider), whose limits are kept per provider identity
//     (server, key, limits) for the whole process, so that every run of
//     serve, mcp or worker shares them.
//   - log.go: --log-prompts, one JSON line per round trip, redacted.
//   - ask.go: Executor.Ask, a structured-output request with a caller's
//     schema and conversation (the thinker's stages), over the same
//     transport, fall-backs and lenient parsing.
//   - embed.go: an Embedder for the block index (embeddings endpoint), with
//     the same retries.
//
// Behaviour a caller should know:
//
//   - A call fails with "set OPENAI_API_KEY, or OPENAI_BASE_URL …" when
//     neither is set; ConfigFromEnv itself never requires them.
//   - Structured output starts as response_format json_schema (strict
//     unless a map, tuple or any field rules it out). When the server
//     rejects that, the Executor switches for the rest of its life to
//     json_object with the schema in the system message, and from there to
//     no response_format at all.
//   - Transport retries (429, 5xx, timeouts, reset connections; Config
//     MaxRetries) happen inside one Execute and are separate from a step's
//     retry block; re-asks after a reply that does not fit are separate
//     again (at most 2). Usage sums every round trip, also on failure.
//   - The prompt log has one line per HTTP round trip, failed tries
//     included (their response is null and their error set).
//   - Numeric parameters of 0 (temperature, top_p) are written back into
//     the request body by zeroTransport (zero.go), since go-openai drops
//     a zero; seed is a pointer and sent as given; max_tokens is sent as
//     max_completion_tokens
//     to OpenAI's reasoning models (o1, o3, o4, gpt-5, …).
//   - Executor.CacheKey puts the model into a step's cache key, so that
//     changing FLOWCTL_MODEL re-runs cached llm steps (watch mode).
//   - The default HTTP client bounds one request to 10 minutes; otherwise
//     the step's timeout (the context) bounds the call.
//
// Package blocks defines the Executor interface and the llm built-in's
// signature; package runtime calls Execute and converts the outputs to the
// step's declared types.
package llm
