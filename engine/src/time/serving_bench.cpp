// The benchmark simulation (serving_bench.hpp; docs/inference.md, "Under a benchmark"). Event by event: the client
// sends a request when its arrival time has come and fewer than max_concurrency are in flight (bench_serving's
// semaphore), the engine runs one forward pass after another, and identical passes in a row (a long prompt's chunks,
// decode steps between two events) are taken as one block, so the work grows with the requests, not their tokens.
//
// How each engine fills a pass, from its scheduler:
// - vLLM V1 (vllm/v1/core/sched/scheduler.py, Scheduler.schedule): the running requests first, one decode token each
//   out of max_num_batched_tokens, then the waiting requests in arrival order take what is left, a prompt that does
//   not fit chunked across passes: prompts and decodes share a pass, and a running request keeps its pace.
// - SGLang (python/sglang/srt/managers/scheduler.py, get_next_batch_to_run): a new prefill batch runs before the
//   running decode batch whenever requests wait (enable_mixed_chunk off by default), taking waiting prompts in arrival
//   order up to chunked_prefill_size tokens: the running requests pause while prompts are prefilled.
// - TensorRT-LLM (tensorrt_llm/_torch/pyexecutor: SimpleScheduler, then the C++ MicroBatchScheduler): in-flight
//   batching, as vLLM's, the generation requests one token each and the context requests after them within
//   max_num_tokens; without enable_chunked_prefill (its default) a prompt goes whole or waits, and the ones behind it wait.
// So under SGLang the requests that arrive together get their first tokens one prefill batch after another and, their
// decodes paused alike, finish together and send the next wave together; under vLLM the waves spread out.
#include "time/serving_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <utility>
#include <vector>

namespace membudget::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A fixed pseudo-random sequence (splitmix64), the same in the CLI, the wasm and the page: a benchmark draws its
// lengths and arrival gaps at random, the estimate draws the same ones every time.
struct Draws {
    std::uint64_t state = 0x6d656d6275646765ull;  // "membudge"
    double next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
    }
    // SGLang's bench_serving random dataset: an integer uniform over [max(⌊nominal × ratio⌋, 1), nominal].
    double length(double nominal, double ratio) {
        const double low = std::max(1.0, std::floor(nominal * ratio));
        return std::min(nominal, low + std::floor(next() * (nominal - low + 1)));
    }
};

struct Request {
    double input = 0, output = 0;
    double sent = kInf, firstToken = kInf, lastToken = 0, done = kInf;
    double prefilled = 0, generated = 0;
};

// numpy.percentile's default (linear between the two nearest ranks), as both benchmarks report P99.
double percentile(std::vector<double>& values, double q) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const double rank = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(rank));
    const std::size_t above = std::min(values.size() - 1, below + 1);
    return values[below] + (values[above] - values[below]) * (rank - std::floor(rank));
}

class Benchmark {
public:
    Benchmark(const BenchmarkLoad& load, const PassSeconds& pass) : load_(load), pass_(pass) {}

    bool run(BenchmarkFigures& out) {
        draw();
        send(0);
        // Each request is sent, prefilled (its last chunk completing it), decoded and finished: a few events each, and
        // a block of passes ends at one of them. The bound only guards against a pass of no time.
        const double events = 64 * load_.prompts + 1024;
        for (double e = 0; finished_ < requests_.size(); ++e) {
            if (e > events || !step()) return false;
        }
        report(out);
        return true;
    }

private:
    // The dataset and the arrival times: lengths as the random dataset draws them, Poisson gaps at the request rate.
    void draw() {
        Draws draws;
        requests_.resize(static_cast<std::size_t>(load_.prompts));
        scheduled_.resize(requests_.size());
        double at = 0;
        for (std::size_t i = 0; i < requests_.size(); ++i) {
            requests_[i].input = draws.length(load_.input, load_.rangeRatio);
            requests_[i].output = draws.length(load_.output, load_.rangeRatio);
            if (load_.requestRate > 0) at += -std::log1p(-draws.next()) / load_.requestRate;
            scheduled_[i] = at;
        }
    }

    // The client sends the next requests in order, each at its arrival time or when a slot frees, whichever is later.
    void send(double slotFree) {
        while (nextToSend_ < requests_.size() && inFlight_ < load_.maxConcurrency) {
            requests_[nextToSend_].sent = std::max(scheduled_[nextToSend_], slotFree);
            arrivals_.push_back(nextToSend_++);  // sent in order, at times that only grow
            ++inFlight_;
        }
    }

    double nextArrival() const { return arrived_ < arrivals_.size() ? requests_[arrivals_[arrived_]].sent : kInf; }

    // SGLang reads new requests at every pass only with --scheduler-recv-interval 1 (its default); above, its
    // SchedulerRecvSkipper (managers/scheduler_recv_skipper.py) adds a pass's weight to a counter and reads when it reaches
    // the interval: a decode pass weighs 1, a prefill pass 1,000 (_DEFAULT_WEIGHT), an idle loop reads at once. So under
    // load a request that arrives during decoding waits for the interval's next multiple of decode passes.
    void admit() {
        if (!receiving_) return;
        while (arrived_ < arrivals_.size() && requests_[arrivals_[arrived_]].sent <= now_) waiting_.push_back(arrivals_[arrived_++]);
        receiving_ = load_.recvInterval <= 1;
    }

    // After `passes` decode passes: whether the counter reached the interval, and the requests are read.
    void countDecodes(double passes) {
        if (load_.recvInterval <= 1) return;
        decodesSinceRead_ += passes;
        if (decodesSinceRead_ >= load_.recvInterval) {
            decodesSinceRead_ = std::fmod(decodesSinceRead_, load_.recvInterval);
            receiving_ = true;
        }
    }

    // The waiting requests, first come first served: those from waitingHead_ on.
    bool nothingWaits() const { return waitingHead_ == waiting_.size(); }

    // One event: a block of passes, or the wait for the next arrival. False where a pass takes no time.
    bool step() {
        admit();
        if (nothingWaits() && running_.empty()) {
            now_ = std::max(now_, nextArrival());
            receiving_ = true;  // an idle scheduler reads at once
            return std::isfinite(now_);
        }
        const bool prefill = !nothingWaits() && roomFor(requests_[waiting_[waitingHead_]], 0) &&
                             (load_.engine == Framework::sglang || (load_.wholePrompts ? headFitsWhole() : decodeBudget() > 0));
        if (!prefill) return decodeBlock();
        return load_.engine == Framework::sglang ? prefillBatch() : mixedPass();
    }

    // Whether the engine takes a waiting request in beside the running ones and `taken` already in this pass: one whose
    // prefill has begun always goes on; a new one only under the engine's limit (the KV cache's sequences).
    bool roomFor(const Request& r, std::size_t taken) const {
        return r.prefilled > 0 || !(load_.engineLimit > 0) || static_cast<double>(running_.size() + taken) < load_.engineLimit;
    }

    // vLLM: what a pass leaves the prompts after one decode token per running request.
    double decodeBudget() const { return load_.tokenBudget - static_cast<double>(running_.size()); }

    // TensorRT-LLM without chunking: the head prompt runs only whole, beside the decodes (MicroBatchScheduler: a context
    // request that exceeds what the step's max_num_tokens leaves waits, and the requests behind it too).
    bool headFitsWhole() const { return requests_[waiting_[waitingHead_]].input <= decodeBudget(); }

    double meanContext() const {
        double sum = 0;
        for (const std::size_t i : running_) sum += requests_[i].input + requests_[i].generated;
        return running_.empty() ? 0 : sum / static_cast<double>(running_.size());
    }

    double decodeStepsLeft() const {
        double left = kInf;
        for (const std::size_t i : running_) left = std::min(left, requests_[i].output - requests_[i].generated);
        return left;
    }

    // `steps` passes of `seconds` each: every running request gets a token per pass; the first gap since its last token
    // also holds whatever paused it (a prefill batch), the rest are one pass each.
    void decodeTokens(double steps, double seconds) {
        const double start = now_;
        now_ += steps * seconds;
        for (const std::size_t i : running_) {
            Request& r = requests_[i];
            gaps_.emplace_back(start + seconds - r.lastToken, 1);
            if (steps > 1) gaps_.emplace_back(seconds, steps - 1);
            r.generated += steps;
            r.lastToken = now_;
        }
        finishDecoded();
    }

    void finishDecoded() {
        std::size_t kept = 0;
        finishing_.clear();
        for (const std::size_t i : running_) {
            if (requests_[i].generated < requests_[i].output) {
                running_[kept++] = i;
            } else {
                finishing_.push_back(i);
            }
        }
        running_.resize(kept);
        for (const std::size_t i : finishing_) finish(i);
    }

    void finish(std::size_t i) {
        requests_[i].done = now_;
        ++finished_;
        --inFlight_;
        send(now_);
    }

    // Decode passes until a request finishes or the next one arrives, as one block.
    bool decodeBlock() {
        double steps = decodeStepsLeft();
        const double n = static_cast<double>(running_.size());
        double seconds = pass_(n, meanContext() + (steps - 1) / 2, 0, 0);
        const double arrival = nextArrival();
        if (std::isfinite(arrival) && seconds > 0) {
            double untilArrival = std::max(1.0, std::ceil((arrival - now_) / seconds));
            // Under SGLang's receive interval the block runs on to the pass at which the arrival is read.
            if (load_.recvInterval > 1)
                untilArrival = std::ceil((decodesSinceRead_ + untilArrival) / load_.recvInterval) * load_.recvInterval - decodesSinceRead_;
            steps = std::clamp(untilArrival, 1.0, steps);
            seconds = pass_(n, meanContext() + (steps - 1) / 2, 0, 0);
        }
        if (!(seconds > 0) || !std::isfinite(seconds)) return false;
        decodeTokens(steps, seconds);
        countDecodes(steps);
        return true;
    }

    // A request whose prompt is complete gets its first token at the end of the pass.
    void firstToken(std::size_t i) {
        Request& r = requests_[i];
        r.firstToken = r.lastToken = now_;
        r.generated = 1;
        if (r.output <= 1) {
            finish(i);
        } else {
            running_.push_back(i);
        }
    }

    // Takes the waiting prompts in arrival order up to `budget` tokens; returns the tokens and their mean attended
    // context, and the requests whose prompts it completes.
    std::pair<double, double> takePrompts(double budget, std::vector<std::size_t>& completed) {
        double tokens = 0, attended = 0;
        while (!nothingWaits() && budget > 0) {
            Request& r = requests_[waiting_[waitingHead_]];
            if (!roomFor(r, completed.size()) || (load_.wholePrompts && r.input - r.prefilled > budget)) break;
            const double take = std::min(r.input - r.prefilled, budget);
            attended += take * (r.prefilled + take / 2);
            r.prefilled += take;
            tokens += take;
            budget -= take;
            if (r.prefilled < r.input) break;
            completed.push_back(waiting_[waitingHead_++]);
        }
        return {tokens, tokens > 0 ? attended / tokens : 0};
    }

    // SGLang: a prefill batch on its own, the running requests paused. A prompt longer than the batch runs its whole
    // chunks as one block first.
    bool prefillBatch() {
        Request& head = requests_[waiting_[waitingHead_]];
        const double budget = load_.tokenBudget;
        const double chunks = std::floor((head.input - head.prefilled - 1) / budget);
        if (chunks >= 1) {
            const double seconds = pass_(0, 0, budget, head.prefilled + chunks * budget / 2);
            if (!(seconds > 0) || !std::isfinite(seconds)) return false;
            now_ += chunks * seconds;
            head.prefilled += chunks * budget;
            receiving_ = true;
            decodesSinceRead_ = 0;
            return true;
        }
        completed_.clear();
        const auto [tokens, attended] = takePrompts(budget, completed_);
        const double seconds = pass_(0, 0, tokens, attended);
        if (!(seconds > 0) || !std::isfinite(seconds)) return false;
        now_ += seconds;
        for (const std::size_t i : completed_) firstToken(i);
        // A prefill pass outweighs any interval: the next loop reads.
        receiving_ = true;
        decodesSinceRead_ = 0;
        return true;
    }

    // vLLM: one pass of the running requests' decodes and what is left of the budget in prompt tokens. Where the head
    // prompt outlasts several passes, they run as one block, ended early by a request finishing or arriving.
    bool mixedPass() {
        Request& head = requests_[waiting_[waitingHead_]];
        const double budget = decodeBudget();
        const double n = static_cast<double>(running_.size());
        const double whole = std::floor((head.input - head.prefilled - 1) / budget);
        if (whole >= 1) {
            double steps = std::min(whole, decodeStepsLeft());
            double seconds = pass_(n, meanContext() + (steps - 1) / 2, budget, head.prefilled + steps * budget / 2);
            const double arrival = nextArrival();
            if (std::isfinite(arrival) && seconds > 0) {
                steps = std::clamp(std::ceil((arrival - now_) / seconds), 1.0, steps);
                seconds = pass_(n, meanContext() + (steps - 1) / 2, budget, head.prefilled + steps * budget / 2);
            }
            if (!(seconds > 0) || !std::isfinite(seconds)) return false;
            head.prefilled += steps * budget;
            if (n > 0) {
                decodeTokens(steps, seconds);
            } else {
                now_ += steps * seconds;
            }
            return true;
        }
        completed_.clear();
        const auto [tokens, attended] = takePrompts(budget, completed_);
        const double seconds = pass_(n, meanContext(), tokens, attended);
        if (!(seconds > 0) || !std::isfinite(seconds)) return false;
        if (n > 0) {
            decodeTokens(1, seconds);
        } else {
            now_ += seconds;
        }
        for (const std::size_t i : completed_) firstToken(i);
        return true;
    }

    void report(BenchmarkFigures& out) {
        std::vector<double> ttft, tpot, latency;
        double outputTokens = 0, inputTokens = 0, end = 0;
        for (const Request& r : requests_) {
            ttft.push_back(r.firstToken - r.sent);
            latency.push_back(r.done - r.sent);
            // Both benchmarks leave single-token outputs out of TPOT.
            if (r.output > 1) tpot.push_back((r.done - r.firstToken) / (r.output - 1));
            outputTokens += r.output;
            inputTokens += r.input;
            end = std::max(end, r.done);
        }
        const double n = static_cast<double>(requests_.size());
        auto mean = [](const std::vector<double>& v) {
            double s = 0;
            for (double x : v) s += x;
            return v.empty() ? 0 : s / static_cast<double>(v.size());
        };
        out.ttftMean = mean(ttft);
        out.tpotMean = mean(tpot);
        out.latencyMean = mean(latency);
        out.ttftP99 = percentile(ttft, 0.99);
        out.tpotP99 = percentile(tpot, 0.99);
        // The inter-token gaps, each block's passes counted as many times as they ran.
        double gapSum = 0, gapCount = 0;
        for (const auto& [seconds, count] : gaps_) gapSum += seconds * count, gapCount += count;
        out.itlMean = gapCount > 0 ? gapSum / gapCount : 0;
        std::sort(gaps_.begin(), gaps_.end());
        const double rank = 0.99 * std::max(0.0, gapCount - 1);
        double seen = 0;
        for (const auto& [seconds, count] : gaps_) {
            seen += count;
            out.itlP99 = seconds;
            if (seen > rank) break;
        }
        out.duration = end;
        out.requestsPerSecond = end > 0 ? n / end : 0;
        out.outputTokensPerSecond = end > 0 ? outputTokens / end : 0;
        out.meanInput = inputTokens / n;
        out.meanOutput = outputTokens / n;
    }

    const BenchmarkLoad& load_;
    const PassSeconds& pass_;
    std::vector<Request> requests_;
    std::vector<double> scheduled_;
    std::vector<std::size_t> arrivals_, waiting_;  // queues: read from arrived_ and waitingHead_ on
    std::vector<std::size_t> running_, completed_, finishing_;
    std::vector<std::pair<double, double>> gaps_;  // (seconds, how many gaps of that length)
    std::size_t nextToSend_ = 0, finished_ = 0, arrived_ = 0, waitingHead_ = 0;
    double inFlight_ = 0, now_ = 0;
    double decodesSinceRead_ = 0;  // SGLang's receive counter (decode passes since the last read)
    bool receiving_ = true;        // whether the next loop reads new requests
};

}  // namespace

bool simulateBenchmark(const BenchmarkLoad& load, const PassSeconds& pass, BenchmarkFigures& out) noexcept {
    if (!(load.prompts >= 1) || load.prompts > kMaxBenchmarkPrompts || !(load.maxConcurrency >= 1) || !(load.tokenBudget >= 1) ||
        !(load.input >= 1) || !(load.output >= 1))
        return false;
    try {
        Benchmark benchmark(load, pass);
        return benchmark.run(out);
    } catch (const std::bad_alloc&) {
        return false;
    }
}

}  // namespace membudget::detail
