//! Names of the threads and asyncio tasks a run tracked (`/thread_table`, `/task_table`),
//! so exports can label lanes as the reference's `ProfilingResults.lane_label` does.

use crate::hdf5lite::reader::File;
use crate::io::ReadAt;

use super::error::Error;
use super::names;

type Result<T> = std::result::Result<T, Error>;

/// The rank column of both tables.
const RANKS: &str = "ranks";

/// One tracked thread of one rank.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Thread {
    pub rank: u32,
    pub index: i64,
    pub name: String,
    pub ident: Option<i64>,
    pub native_id: Option<i64>,
}

/// One tracked asyncio task of one rank.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Task {
    pub rank: u32,
    pub index: i64,
    pub name: String,
    pub coro_name: String,
    pub thread_index: i64,
}

/// The thread and task tables (both empty for runs that tracked no threads).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lanes {
    pub threads: Vec<Thread>,
    pub tasks: Vec<Task>,
}

fn has_link<R: ReadAt>(file: &File<R>, group: &str, name: &str) -> Result<bool> {
    Ok(file.group(group)?.links()?.iter().any(|l| l.name == name))
}

fn column<R: ReadAt>(
    file: &File<R>,
    table: &str,
    name: &str,
    n: usize,
) -> Result<Option<Vec<i64>>> {
    if !has_link(file, table, name)? {
        return Ok(None);
    }
    let v = file.dataset(&format!("{table}/{name}"))?.read_i64s()?;
    if v.len() != n {
        return Err(Error::Corrupt(format!(
            "{table}/{name} has {} rows, {table}/ranks {n}",
            v.len()
        )));
    }
    Ok(Some(v))
}

fn strings<R: ReadAt>(file: &File<R>, table: &str, name: &str, n: usize) -> Result<Vec<String>> {
    if !has_link(file, table, name)? {
        return Ok(vec![String::new(); n]);
    }
    let v = file.dataset(&format!("{table}/{name}"))?.read_strings()?;
    if v.len() != n {
        return Err(Error::Corrupt(format!(
            "{table}/{name} has {} rows, {table}/ranks {n}",
            v.len()
        )));
    }
    Ok(v)
}

fn ranks<R: ReadAt>(file: &File<R>, table: &str) -> Result<Option<Vec<u32>>> {
    if !has_link(file, "/", table.trim_start_matches('/'))? || !has_link(file, table, RANKS)? {
        return Ok(None);
    }
    file.dataset(&format!("{table}/{RANKS}"))?
        .read_u64s()?
        .into_iter()
        .map(|r| u32::try_from(r).map_err(|_| Error::Corrupt(format!("{table}: rank {r}"))))
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

impl Lanes {
    /// Reads both tables; absent tables give empty lists.
    pub fn read<R: ReadAt>(file: &File<R>) -> Result<Lanes> {
        let mut lanes = Lanes::default();
        if let Some(ranks) = ranks(file, names::THREAD_TABLE.path)? {
            let n = ranks.len();
            let t = names::THREAD_TABLE.path;
            let index = column(file, t, "index", n)?;
            let ident = column(file, t, "ident", n)?;
            let native = column(file, t, "native_id", n)?;
            let names = strings(file, t, "name", n)?;
            for (i, (&rank, name)) in ranks.iter().zip(names).enumerate() {
                lanes.threads.push(Thread {
                    rank,
                    index: index.as_ref().map_or(i as i64, |v| v[i]),
                    name,
                    ident: ident.as_ref().map(|v| v[i]),
                    native_id: native.as_ref().map(|v| v[i]),
                });
            }
        }
        if let Some(ranks) = ranks(file, names::TASK_TABLE.path)? {
            let n = ranks.len();
            let t = names::TASK_TABLE.path;
            let index = column(file, t, "index", n)?;
            let thread = column(file, t, "thread_index", n)?;
            let names = strings(file, t, "name", n)?;
            let coros = strings(file, t, "coro_name", n)?;
            for (i, ((&rank, name), coro_name)) in ranks.iter().zip(names).zip(coros).enumerate() {
                lanes.tasks.push(Task {
                    rank,
                    index: index.as_ref().map_or(i as i64, |v| v[i]),
                    name,
                    coro_name,
                    thread_index: thread.as_ref().map_or(-1, |v| v[i]),
                });
            }
        }
        Ok(lanes)
    }

    /// The thread `index` of `rank`, if tracked.
    pub fn thread(&self, rank: u32, index: i64) -> Option<&Thread> {
        self.threads
            .iter()
            .find(|t| t.rank == rank && t.index == index)
    }

    /// A lane's display name (`lane_label`): a task as `name (coroutine) on thread`, a
    /// thread by its name, −1 as `unknown lane`.
    pub fn label(&self, lane: i64, rank: u32) -> String {
        if lane >= 0 {
            if let Some(task) = self
                .tasks
                .iter()
                .find(|t| t.rank == rank && t.index == lane)
            {
                let thread = self.label((-2i64).saturating_sub(task.thread_index), rank);
                let tail = task.coro_name.rsplit('.').next().unwrap_or_default();
                return format!("{} ({tail}) on {thread}", task.name);
            }
            return format!("task {lane}");
        }
        if lane == -1 {
            return "unknown lane".into();
        }
        let index = (-2i64).saturating_sub(lane);
        match self.thread(rank, index) {
            Some(t) => t.name.clone(),
            None => format!("thread {index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_reference() {
        let lanes = Lanes {
            threads: vec![Thread {
                rank: 0,
                index: 0,
                name: "Main".into(),
                ..Thread::default()
            }],
            tasks: vec![Task {
                rank: 0,
                index: 4,
                name: "Task-1".into(),
                coro_name: "mod.fetch".into(),
                thread_index: 0,
            }],
        };
        assert_eq!(lanes.label(-2, 0), "Main");
        assert_eq!(lanes.label(-3, 0), "thread 1");
        assert_eq!(lanes.label(-1, 0), "unknown lane");
        assert_eq!(lanes.label(4, 0), "Task-1 (fetch) on Main");
        assert_eq!(lanes.label(5, 0), "task 5");
        assert_eq!(lanes.label(-2, 1), "thread 0");
    }
}
