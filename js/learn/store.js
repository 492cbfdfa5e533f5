'use strict';
// Where learned examples live: the in-process store (the default), bounded in count and bytes.
//
// An example is one past request, kept as hashed terms (see features.js), with the tool that
// served it, the resource (user) it came from, how often it was seen and when last. A store
// is split in partitions: one per resource under scope 'resource', one for the deployment
// under scope 'global', and one for `learn.seed`. Each partition is a small inverted index
// whose nearest examples to a request (TF-IDF cosine over the terms) are what learning votes
// with.
//
// The contract a custom store implements (in-process and synchronous in this increment; an
// asynchronous, shared one such as Redis is later work):
//   add(partition, example, now)              -> void     keeps the example (a repeat of the same
//                                                          resource, tool and terms is merged into
//                                                          the one kept: uses + 1, time = now)
//   neighbours(partition, features, k, minSimilarity)
//                                             -> [{ tool, resource, similarity, time, seed }]
//                                                          best first, at most k
//   forgetResource(resource)                  -> number   examples removed (every partition)
//   clear()                                   -> void     every learned example (seeds stay)
//   stats()                                   -> { examples, seeds, resources, bytes }

const { featureKey } = require('./features.js');

/** Bytes an example costs beyond its terms (object, maps, strings), roughly. */
const EXAMPLE_OVERHEAD_BYTES = 160;
const SEED_PARTITION = '\u0000seed';

class Partition {
  examples = new Map(); // id -> example
  postings = new Map(); // term -> Set of ids
  byKey = new Map(); // resource + tool + terms -> id

  add(example) {
    this.examples.set(example.id, example);
    this.byKey.set(example.key, example.id);
    for (const term of example.terms) {
      let ids = this.postings.get(term);
      if (!ids) this.postings.set(term, (ids = new Set()));
      ids.add(example.id);
    }
  }

  remove(example) {
    if (!this.examples.delete(example.id)) return false;
    this.byKey.delete(example.key);
    for (const term of example.terms) {
      const ids = this.postings.get(term);
      ids.delete(example.id);
      if (ids.size === 0) this.postings.delete(term);
    }
    return true;
  }

  #idf(term) {
    const df = this.postings.get(term)?.size ?? 0;
    return Math.log(1 + this.examples.size / Math.max(1, df));
  }

  /** The examples sharing a term with `features`, by TF-IDF cosine, best first (at most `k`). */
  neighbours(features, k, minSimilarity) {
    const queryWeights = new Map();
    let queryNorm = 0;
    for (let i = 0; i < features.terms.length; i++) {
      const w = (1 + Math.log(features.counts[i])) * this.#idf(features.terms[i]);
      queryWeights.set(features.terms[i], w);
      queryNorm += w * w;
    }
    if (queryNorm === 0) return [];
    const candidates = new Set();
    for (const term of features.terms) {
      const ids = this.postings.get(term);
      if (ids) for (const id of ids) candidates.add(id);
    }
    const found = [];
    for (const id of candidates) {
      const example = this.examples.get(id);
      let dot = 0;
      let norm = 0;
      for (let i = 0; i < example.terms.length; i++) {
        const w = (1 + Math.log(example.counts[i])) * this.#idf(example.terms[i]);
        norm += w * w;
        const q = queryWeights.get(example.terms[i]);
        if (q !== undefined) dot += q * w;
      }
      const similarity = norm > 0 ? dot / Math.sqrt(norm * queryNorm) : 0;
      if (similarity >= minSimilarity) found.push({ example, similarity });
    }
    found.sort((a, b) => b.similarity - a.similarity || a.example.id - b.example.id);
    return found.slice(0, k);
  }
}

class InMemoryLearnStore {
  #partitions = new Map();
  #nextId = 0;
  #bytes = 0;
  #count = 0;
  #seeds = 0;
  #maxExamples;
  #maxBytes;
  #halfLifeMs;

  constructor({ maxExamples, maxBytes, halfLifeMs }) {
    this.#maxExamples = maxExamples;
    this.#maxBytes = maxBytes;
    this.#halfLifeMs = halfLifeMs;
  }

  add(partitionKey, { tool, resource, features }, now) {
    const seed = partitionKey === SEED_PARTITION;
    let partition = this.#partitions.get(partitionKey);
    if (!partition) this.#partitions.set(partitionKey, (partition = new Partition()));
    const key = `${resource}\u0000${tool}\u0000${featureKey(features)}`;
    const known = partition.byKey.get(key);
    if (known !== undefined) {
      const example = partition.examples.get(known);
      example.uses++;
      example.time = now;
      return;
    }
    const bytes = EXAMPLE_OVERHEAD_BYTES + 6 * features.terms.length + 2 * (tool.length + String(resource).length);
    partition.add({ id: this.#nextId++, key, tool, resource, terms: features.terms, counts: features.counts, uses: 1, time: now, bytes, seed, partitionKey });
    if (seed) {
      this.#seeds++;
      return;
    }
    this.#count++;
    this.#bytes += bytes;
    if (this.#count > this.#maxExamples || this.#bytes > this.#maxBytes) this.#evict(now);
  }

  /** How much an example still weighs: halved every half-life since it was last seen. */
  decay(example, now) {
    if (example.seed || !(this.#halfLifeMs > 0)) return 1;
    return Math.pow(0.5, Math.max(0, now - example.time) / this.#halfLifeMs);
  }

  /**
   * Over a bound: the examples with the least `uses x decay` go first (older and rarer), down to
   * 90% of the bound, so eviction runs once per many adds rather than at every one.
   */
  #evict(now) {
    const learned = [];
    for (const partition of this.#partitions.values()) {
      for (const example of partition.examples.values()) if (!example.seed) learned.push(example);
    }
    learned.sort((a, b) => a.uses * this.decay(a, now) - b.uses * this.decay(b, now) || a.time - b.time);
    const countGoal = Math.floor(this.#maxExamples * 0.9);
    const bytesGoal = this.#maxBytes * 0.9;
    for (const example of learned) {
      if (this.#count <= countGoal && this.#bytes <= bytesGoal) break;
      this.#drop(example);
    }
  }

  #drop(example) {
    const partition = this.#partitions.get(example.partitionKey);
    if (!partition.remove(example)) return;
    if (example.seed) {
      this.#seeds--;
    } else {
      this.#count--;
      this.#bytes -= example.bytes;
    }
    if (partition.examples.size === 0) this.#partitions.delete(example.partitionKey);
  }

  neighbours(partitionKey, features, k, minSimilarity) {
    const partition = this.#partitions.get(partitionKey);
    if (!partition) return [];
    return partition.neighbours(features, k, minSimilarity).map(({ example, similarity }) => ({
      tool: example.tool,
      resource: example.resource,
      similarity,
      time: example.time,
      seed: example.seed,
      example,
    }));
  }

  forgetResource(resource) {
    let removed = 0;
    for (const partition of [...this.#partitions.values()]) {
      for (const example of [...partition.examples.values()]) {
        if (!example.seed && example.resource === resource) {
          this.#drop(example);
          removed++;
        }
      }
    }
    return removed;
  }

  clear() {
    const seeds = this.#partitions.get(SEED_PARTITION);
    this.#partitions.clear();
    if (seeds) this.#partitions.set(SEED_PARTITION, seeds);
    this.#count = 0;
    this.#bytes = 0;
  }

  stats() {
    const resources = new Set();
    for (const partition of this.#partitions.values()) {
      for (const example of partition.examples.values()) if (!example.seed) resources.add(example.resource);
    }
    return { examples: this.#count, seeds: this.#seeds, resources: resources.size, bytes: this.#bytes };
  }
}

module.exports = { InMemoryLearnStore, SEED_PARTITION };
