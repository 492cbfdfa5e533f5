//! Retrieval metrics at topK 10 (recall@1/5/10, MRR@10, nDCG@10), shared by the quality
//! examples. recall@k = |relevant ∩ top-k| / |relevant|.
#![allow(dead_code)]

#[derive(Default, Clone, Copy)]
pub struct Metrics {
    pub n: usize,
    r1: f64,
    r5: f64,
    r10: f64,
    mrr: f64,
    ndcg: f64,
}

impl Metrics {
    /// Adds one query: its ranking and its relevant documents.
    pub fn add<T: PartialEq>(&mut self, ranked: &[T], relevant: &[T]) {
        let rel = |d: &T| relevant.contains(d);
        let recall = |k: usize| ranked.iter().take(k).filter(|d| rel(d)).count() as f64 / relevant.len().max(1) as f64;
        self.n += 1;
        self.r1 += recall(1);
        self.r5 += recall(5);
        self.r10 += recall(10);
        if let Some(p) = ranked.iter().take(10).position(rel) {
            self.mrr += 1.0 / (p as f64 + 1.0);
        }
        let dcg: f64 = ranked.iter().take(10).enumerate().filter(|(_, d)| rel(d)).map(|(i, _)| 1.0 / (i as f64 + 2.0).log2()).sum();
        let ideal: f64 = (0..relevant.len().min(10)).map(|i| 1.0 / (i as f64 + 2.0).log2()).sum();
        if ideal > 0.0 {
            self.ndcg += dcg / ideal;
        }
    }

    pub fn merge(&mut self, o: &Metrics) {
        self.n += o.n;
        self.r1 += o.r1;
        self.r5 += o.r5;
        self.r10 += o.r10;
        self.mrr += o.mrr;
        self.ndcg += o.ndcg;
    }

    /// Mean recall@1.
    pub fn r1(&self) -> f64 {
        self.r1 / self.n.max(1) as f64
    }

    /// Mean recall@5.
    pub fn r5(&self) -> f64 {
        self.r5 / self.n.max(1) as f64
    }

    /// One table row, under [`header`].
    pub fn row(&self, label: &str) -> String {
        let n = self.n.max(1) as f64;
        let [r1, r5, r10, mrr, ndcg] = [self.r1, self.r5, self.r10, self.mrr, self.ndcg].map(|x| x / n);
        format!("{label:<30} {:>6} {r1:>9.4} {r5:>9.4} {r10:>9.4} {mrr:>9.4} {ndcg:>9.4}", self.n)
    }
}

/// The header of [`Metrics::row`] tables.
pub fn header(first: &str) -> String {
    format!("{first:<30} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}", "n", "recall@1", "recall@5", "recall@10", "MRR@10", "nDCG@10")
}
