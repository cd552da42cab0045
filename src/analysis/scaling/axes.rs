//! What a scaling study scales over, resolved as the reference resolves it
//! (`report_data._scaling_field`, `_check_speedup_x`, `statistics._speedup_x_value`): MPI
//! ranks, nodes, OpenMP threads, cores (ranks × threads) or any metadata field; `auto`
//! picks ranks when they vary, else threads when they vary. A named axis that some run
//! did not record is an error naming that run.

use std::fmt;

use crate::analysis::runs::Run;

/// The x-axis of a scaling study (`--x`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Axis {
    /// Ranks when they vary, else threads when they vary.
    #[default]
    Auto,
    Ranks,
    Nodes,
    Threads,
    Cores,
    /// A metadata field, its values in order of first appearance.
    Meta(String),
}

impl Axis {
    /// The axis named on the command line (`auto`, `ranks`, `nodes`, `threads`, `cores`,
    /// or a metadata key).
    pub fn from_name(name: &str) -> Axis {
        match name {
            "auto" => Axis::Auto,
            "ranks" => Axis::Ranks,
            "nodes" => Axis::Nodes,
            "threads" => Axis::Threads,
            "cores" => Axis::Cores,
            key => Axis::Meta(key.to_string()),
        }
    }

    /// The reference's field name (`num_ranks`, …, or the key), the exports' x column.
    pub fn field(&self) -> &str {
        match self {
            Axis::Auto | Axis::Ranks => "num_ranks",
            Axis::Nodes => "num_nodes",
            Axis::Threads => "omp_num_threads",
            Axis::Cores => "total_cores",
            Axis::Meta(key) => key,
        }
    }

    /// The axis title (`_x_label`).
    pub fn label(&self) -> &str {
        match self {
            Axis::Auto | Axis::Ranks => "MPI ranks",
            Axis::Nodes => "nodes",
            Axis::Threads => "OpenMP threads",
            Axis::Cores => "MPI ranks × OpenMP threads",
            Axis::Meta(key) => key,
        }
    }

    /// Whether values are counts of parallelism (sorted, with an ideal speedup), rather
    /// than the categories of a metadata field.
    pub fn is_scaling(&self) -> bool {
        !matches!(self, Axis::Meta(_))
    }

    /// The command-line name of a scaling axis.
    fn name(&self) -> &str {
        match self {
            Axis::Auto => "auto",
            Axis::Ranks => "ranks",
            Axis::Nodes => "nodes",
            Axis::Threads => "threads",
            Axis::Cores => "cores",
            Axis::Meta(key) => key,
        }
    }

    /// `run`'s value on this axis (`None` when it did not record it).
    pub fn value(&self, run: &Run) -> Option<XValue> {
        let int = |v: Option<u64>| v.and_then(|v| i64::try_from(v).ok()).map(XValue::Int);
        match self {
            Axis::Auto | Axis::Ranks => int(Some(run.ranks)),
            Axis::Nodes => int(run.nodes),
            Axis::Threads => int(run.threads),
            Axis::Cores => int(run.cores),
            Axis::Meta(key) => run.meta(key).map(|v| XValue::Text(v.to_string())),
        }
    }

    /// The axis `self` stands for over `runs`: `auto` resolved, a named axis checked
    /// against every run.
    pub fn resolve(&self, runs: &[Run]) -> Result<Axis, AxisError> {
        if *self == Axis::Auto {
            let varies = |axis: &Axis| {
                let values: Vec<Option<XValue>> = runs.iter().map(|r| axis.value(r)).collect();
                !values.contains(&None) && values.windows(2).any(|w| w[0] != w[1])
            };
            return if varies(&Axis::Ranks) {
                Ok(Axis::Ranks)
            } else if varies(&Axis::Threads) {
                Ok(Axis::Threads)
            } else {
                Err(AxisError::NothingVaries)
            };
        }
        if let Some(run) = runs.iter().find(|r| self.value(r).is_none()) {
            return Err(AxisError::Missing {
                axis: self.name().to_string(),
                field: self.field().to_string(),
                run: run.file.clone(),
            });
        }
        Ok(self.clone())
    }
}

/// The metadata keys every run recorded, with more than one value among them: the axes a
/// sweep over a setting of its own (a problem size, a solver) can use, in the first run's
/// order. The run's label varies by design and is left out.
pub fn metadata_axes(runs: &[Run]) -> Vec<String> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    (first.metadata.iter())
        .filter(|(key, value)| {
            key != "label"
                && runs.iter().all(|r| r.meta(key).is_some())
                && runs.iter().any(|r| r.meta(key) != Some(value.as_str()))
        })
        .map(|(key, _)| key.clone())
        .collect()
}

/// A run's position on the axis.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum XValue {
    Int(i64),
    Text(String),
}

impl XValue {
    /// The value as a number, for the ideal line and the models (`None` for text that
    /// is not a number).
    pub fn number(&self) -> Option<f64> {
        match self {
            XValue::Int(i) => Some(*i as f64),
            XValue::Text(t) => t.trim().parse().ok(),
        }
    }
}

impl fmt::Display for XValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XValue::Int(i) => write!(f, "{i}"),
            XValue::Text(t) => f.write_str(t),
        }
    }
}

/// Why runs cannot be put on an axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AxisError {
    /// `auto` over runs that share ranks and threads.
    NothingVaries,
    /// A named axis some run did not record.
    Missing {
        axis: String,
        field: String,
        run: String,
    },
}

impl fmt::Display for AxisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisError::NothingVaries => f.write_str(
                "the runs share their ranks and threads, so there is nothing to scale over; \
                 name an axis with --x (nodes, cores or a metadata key)",
            ),
            AxisError::Missing { axis, field, run } => write!(
                f,
                "{run}: the {axis} axis needs {field:?} in every run's metadata, and this run did not record it"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(metadata: &[(&str, &str)]) -> Run {
        Run {
            file: "f.h5".into(),
            label: "f".into(),
            host: None,
            start: None,
            ranks: 1,
            nodes: None,
            threads: None,
            cores: None,
            wall: 0.0,
            metadata: (metadata.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            rows: Vec::new(),
        }
    }

    #[test]
    fn metadata_axes_are_the_keys_every_run_has_that_vary() {
        let runs = [
            run(&[
                ("label", "a"),
                ("size", "64"),
                ("solver", "cg"),
                ("host", "n1"),
            ]),
            run(&[("label", "b"), ("size", "128"), ("solver", "cg")]),
            run(&[("solver", "gmres"), ("size", "256"), ("label", "c")]),
        ];
        assert_eq!(metadata_axes(&runs), ["size", "solver"]);
        assert_eq!(metadata_axes(&runs[..1]), Vec::<String>::new());
        assert!(metadata_axes(&[]).is_empty());
    }
}
