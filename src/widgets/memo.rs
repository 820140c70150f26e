//! One Yew component renders every panel of the explorer and re-renders a panel only when its
//! props changed (their `PartialEq`: shared values such as the evaluation by identity, see
//! [`super::Same`]). One component type for all of them, not one each: every Yew component
//! type carries its own copy of Yew's lifecycle code, about 1.2 KB gzipped, which ten panels
//! would have added to the explorer's bundle.

use std::any::Any;
use std::rc::Rc;
use yew::prelude::*;

/// A panel's props: compared with the last render's, drawn by `view` when they differ.
pub trait Panel: PartialEq + 'static {
    fn view(&self) -> Html;
}

/// The object-safe side of [`Panel`].
trait Drawn {
    fn same(&self, other: &dyn Any) -> bool;
    fn draw(&self) -> Html;
    fn any(&self) -> &dyn Any;
}

impl<P: Panel> Drawn for P {
    fn same(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<P>().is_some_and(|o| o == self)
    }
    fn draw(&self) -> Html {
        self.view()
    }
    fn any(&self) -> &dyn Any {
        self
    }
}

#[derive(Properties)]
struct Props {
    panel: Rc<dyn Drawn>,
}

impl PartialEq for Props {
    fn eq(&self, other: &Self) -> bool {
        self.panel.same(other.panel.any())
    }
}

#[component]
fn Memo(props: &Props) -> Html {
    props.panel.draw()
}

#[inline(never)]
fn memo_dyn(panel: Rc<dyn Drawn>) -> Html {
    html! { <Memo {panel} /> }
}

/// `panel`, rendered again only when it differs from the last render's at this place.
pub fn memo<P: Panel>(panel: P) -> Html {
    memo_dyn(Rc::new(panel))
}
