//! The typed state of a graph, its typed updates and the reducers that merge them.

use serde::{Serialize, de::DeserializeOwned};

/// The state a graph threads through its nodes.
///
/// Nodes never mutate the state: they return an [`GraphState::Update`] and the runtime merges
/// it with [`GraphState::apply`], field by field with the reducers of [`reduce`] (replace,
/// append) or a custom merge. Branches of a fan-out are merged in their declared order, so the
/// result never depends on which branch finished first.
pub trait GraphState: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// What a node returns to change the state.
    type Update: Send + 'static;

    /// Version of the serialized form, stored with every checkpoint. Bump it when the state's
    /// shape changes; loading a checkpoint of another version is an error.
    const VERSION: u32 = 1;

    /// Merges one update into the state.
    fn apply(&mut self, update: Self::Update);
}

/// Reducers for [`GraphState::apply`].
pub mod reduce {
    /// Replace: a present value overwrites the field, an absent one leaves it.
    pub fn replace<T>(field: &mut T, value: Option<T>) {
        if let Some(value) = value {
            *field = value;
        }
    }

    /// Append: items are added after the existing ones, in their order.
    pub fn append<T>(field: &mut Vec<T>, items: Vec<T>) {
        if field.is_empty() {
            *field = items;
        } else {
            field.extend(items);
        }
    }

    /// Custom merge: a present value is combined with the field by `merge`.
    pub fn merge<T, V>(field: &mut T, value: Option<V>, merge: impl FnOnce(&mut T, V)) {
        if let Some(value) = value {
            merge(field, value);
        }
    }
}
