package dataset

import "encoding/json"

// The row types below are written as JSON Lines and, with the same field
// names, as Parquet. Field order is the column order.

// Message is one chat turn in OpenAI's chat format. Content is a pointer
// because OpenAI's style omits it on an assistant turn that only calls
// tools; TRL's style always sets it.
type Message struct {
	Role             string     `json:"role" parquet:"role"`
	Content          *string    `json:"content,omitempty" parquet:"content,optional"`
	ReasoningContent string     `json:"reasoning_content,omitempty" parquet:"reasoning_content"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty" parquet:"tool_calls,list"`
	ToolCallID       string     `json:"tool_call_id,omitempty" parquet:"tool_call_id"`
}

// ToolCall is an assistant's call of a tool. Arguments is a JSON object
// encoded as a string, as OpenAI's API returns it.
type ToolCall struct {
	ID       string       `json:"id" parquet:"id"`
	Type     string       `json:"type" parquet:"type"`
	Function FunctionCall `json:"function" parquet:"function"`
}

// FunctionCall names the function and carries its arguments.
type FunctionCall struct {
	Name      string `json:"name" parquet:"name"`
	Arguments string `json:"arguments" parquet:"arguments"`
}

// Tool is one OpenAI function schema. Parameters is the JSON Schema
// object; in Parquet it is a JSON-typed string column, because the four
// tools' schemas have different shapes.
type Tool struct {
	Type     string       `json:"type" parquet:"type"`
	Function ToolFunction `json:"function" parquet:"function"`
}

// ToolFunction describes a function.
type ToolFunction struct {
	Name        string          `json:"name" parquet:"name"`
	Description string          `json:"description" parquet:"description"`
	Parameters  json.RawMessage `json:"parameters" parquet:"parameters,json"`
}

// Meta says where a row came from. It is written in TRL style and in the
// steps format; OpenAI's fine-tuning files carry only what OpenAI accepts.
type Meta struct {
	EpisodeID string  `json:"episode_id" parquet:"episode_id"`
	ProblemID string  `json:"problem_id" parquet:"problem_id"`
	Type      string  `json:"type" parquet:"type"`
	Cluster   string  `json:"cluster" parquet:"cluster"`
	Split     string  `json:"split" parquet:"split"`
	Kind      string  `json:"kind" parquet:"kind"`
	RaceID    uint64  `json:"race_id,omitempty" parquet:"race_id"`
	Hotkey    string  `json:"hotkey" parquet:"hotkey"`
	MinerUID  int     `json:"miner_uid" parquet:"miner_uid"`
	Block     uint64  `json:"block" parquet:"block"`
	Final     float64 `json:"final" parquet:"final"`
	Judge     float64 `json:"judge" parquet:"judge"`
	// JudgeFindings names what the judge found about the reasoning
	// (templated, injection, clipped; see docs/scoring.md).
	JudgeFindings []string `json:"judge_findings,omitempty" parquet:"judge_findings,list,optional"`
	Success       bool     `json:"success" parquet:"success"`
	EndReason     string   `json:"end_reason" parquet:"end_reason"`
	// Verified says the row's content came from the validator's relay:
	// in sft, every step of the episode verified and none was dictated; in
	// steps and completions, the row's step did (docs/dataset.md,
	// "Verified inference").
	Verified bool `json:"verified" parquet:"verified"`
	// Step is the step index (steps and completions formats only).
	Step int `json:"step,omitempty" parquet:"step"`
}

// SFTRow is one trajectory as a conversation (format sft).
type SFTRow struct {
	Messages []Message `json:"messages" parquet:"messages,list"`
	Tools    []Tool    `json:"tools" parquet:"tools,list"`
	Meta     *Meta     `json:"meta,omitempty" parquet:"meta,optional"`
}

// StepsRow is one step as an Alpaca-style sample (format steps): the
// instruction is the system prompt with the tools, the input is the user's
// query with the history so far, the output is the step.
type StepsRow struct {
	Instruction string `json:"instruction" parquet:"instruction"`
	Input       string `json:"input" parquet:"input"`
	Output      string `json:"output" parquet:"output"`
	Meta        *Meta  `json:"meta,omitempty" parquet:"meta,optional"`
}

// PairMeta says where a preference pair came from.
type PairMeta struct {
	ProblemID       string  `json:"problem_id" parquet:"problem_id"`
	Type            string  `json:"type" parquet:"type"`
	Cluster         string  `json:"cluster" parquet:"cluster"`
	Split           string  `json:"split" parquet:"split"`
	ChosenEpisode   string  `json:"chosen_episode" parquet:"chosen_episode"`
	RejectedEpisode string  `json:"rejected_episode" parquet:"rejected_episode"`
	ChosenFinal     float64 `json:"chosen_final" parquet:"chosen_final"`
	RejectedFinal   float64 `json:"rejected_final" parquet:"rejected_final"`
	Margin          float64 `json:"margin" parquet:"margin"`
	// Verified: both episodes verified (every step a relay completion,
	// none dictated); ChosenVerified and RejectedVerified say it of each.
	Verified         bool `json:"verified" parquet:"verified"`
	ChosenVerified   bool `json:"chosen_verified" parquet:"chosen_verified"`
	RejectedVerified bool `json:"rejected_verified" parquet:"rejected_verified"`
}

// DPORow is a preference pair in TRL's conversational form (format dpo,
// style trl): prompt, chosen and rejected continuations, and the tools.
type DPORow struct {
	Prompt   []Message `json:"prompt" parquet:"prompt,list"`
	Chosen   []Message `json:"chosen" parquet:"chosen,list"`
	Rejected []Message `json:"rejected" parquet:"rejected,list"`
	Tools    []Tool    `json:"tools" parquet:"tools,list"`
	Meta     *PairMeta `json:"meta,omitempty" parquet:"meta,optional"`
}

// OpenAIInput is the input of an OpenAI preference example.
type OpenAIInput struct {
	Messages []Message `json:"messages" parquet:"messages,list"`
	Tools    []Tool    `json:"tools" parquet:"tools,list"`
}

// OpenAIDPORow is a preference pair in OpenAI's preference fine-tuning
// form (format dpo, style openai).
type OpenAIDPORow struct {
	Input              OpenAIInput `json:"input" parquet:"input"`
	PreferredOutput    []Message   `json:"preferred_output" parquet:"preferred_output,list"`
	NonPreferredOutput []Message   `json:"non_preferred_output" parquet:"non_preferred_output,list"`
}

// RewardModel is verl's reward spec: a rule-based reward with the ground
// truth as a JSON string ({"type","reward","voucher"}).
type RewardModel struct {
	Style       string `json:"style" parquet:"style"`
	GroundTruth string `json:"ground_truth" parquet:"ground_truth"`
}

// GroupMember is one racer's episode in a GRPO group.
type GroupMember struct {
	EpisodeID string  `json:"episode_id" parquet:"episode_id"`
	Hotkey    string  `json:"hotkey" parquet:"hotkey"`
	Reward    float64 `json:"reward" parquet:"reward"`
	// Advantage is Dr. GRPO's: reward minus the group's mean reward, not
	// divided by the standard deviation.
	Advantage   float64   `json:"advantage" parquet:"advantage"`
	StepRewards []float64 `json:"step_rewards" parquet:"step_rewards,list"`
	Success     bool      `json:"success" parquet:"success"`
	// Verified: every step of the episode verified, none dictated.
	Verified bool `json:"verified" parquet:"verified"`
	// Completion is the trajectory after the prompt.
	Completion []Message `json:"completion" parquet:"completion,list"`
}

// GRPOExtra is verl's extra_info.
type GRPOExtra struct {
	Split     string `json:"split" parquet:"split"`
	Index     int64  `json:"index" parquet:"index"`
	ProblemID string `json:"problem_id" parquet:"problem_id"`
	Type      string `json:"type" parquet:"type"`
	Cluster   string `json:"cluster" parquet:"cluster"`
	// Verified: every member is verified.
	Verified bool          `json:"verified" parquet:"verified"`
	Group    []GroupMember `json:"group" parquet:"group,list"`
}

// GRPORow is one problem with its race group (format grpo), in verl's RL
// dataset layout.
type GRPORow struct {
	DataSource  string      `json:"data_source" parquet:"data_source"`
	Prompt      []Message   `json:"prompt" parquet:"prompt,list"`
	Ability     string      `json:"ability" parquet:"ability"`
	RewardModel RewardModel `json:"reward_model" parquet:"reward_model"`
	ExtraInfo   GRPOExtra   `json:"extra_info" parquet:"extra_info"`
}

// Usage is a completion's token use as the provider reported it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens" parquet:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens" parquet:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens" parquet:"total_tokens"`
}

// CompletionRow is one verified step's model call (format completions):
// the chat-completions request the validator's relay forwarded to its
// provider and the provider's answer, as the relay recorded them, so a
// trainer sees exactly the context the model saw and what it returned.
type CompletionRow struct {
	CompletionID string `json:"completion_id" parquet:"completion_id"`
	Model        string `json:"model" parquet:"model"`
	// Request is the OpenAI chat-completions body the provider received.
	Request json.RawMessage `json:"request" parquet:"request,json"`
	// Response is the provider's chat.completion body.
	Response json.RawMessage `json:"response" parquet:"response,json"`
	Usage    Usage           `json:"usage" parquet:"usage"`
	Meta     *Meta           `json:"meta" parquet:"meta,optional"`
}
