//! The fixed texts a plan carries, in each language: the questions it asks and the reasons it
//! gives. They name exactly what is missing or chosen between, and nothing else.

use stalwart_record::Language;

/// The question naming the arguments a call still needs.
pub fn missing(language: Language, tool: &str, missing: &[String]) -> String {
    let list = join(language, missing);
    match language {
        Language::En => format!("To run {tool} I still need: {list}."),
        Language::PtBr => format!("Para executar {tool} ainda preciso de: {list}."),
    }
}

/// The question asking which of several tools is meant.
pub fn which_tool(language: Language, tools: &[String]) -> String {
    let list = join_or(language, tools);
    match language {
        Language::En => format!("Which do you mean: {list}?"),
        Language::PtBr => format!("Qual destes você quer: {list}?"),
    }
}

/// The question asking which of several values an argument takes.
pub fn which_value(language: Language, argument: &str, values: &[String]) -> String {
    let list = join_or(language, values);
    match language {
        Language::En => format!("Which {argument} do you mean: {list}?"),
        Language::PtBr => format!("Qual {argument} você quer: {list}?"),
    }
}

/// The one request to say a turn again.
pub fn ask_again(language: Language) -> &'static str {
    match language {
        Language::En => "I did not understand that. Could you say it again in other words?",
        Language::PtBr => "Não entendi. Você pode dizer de outro jeito?",
    }
}

/// `on_unread: ask`: leave for the model.
pub fn ask_model(language: Language) -> &'static str {
    match language {
        Language::En => "I cannot read this request myself. May the model have this turn?",
        Language::PtBr => {
            "Não consigo ler este pedido sozinho. Posso passar esta mensagem ao modelo?"
        }
    }
}

/// The reason of a declined calculation.
pub fn compute_off(language: Language) -> &'static str {
    match language {
        Language::En => "compute off: this runtime runs no sandbox, so it does not calculate",
        Language::PtBr => "compute off: este runtime não roda sandbox, então não faz cálculos",
    }
}

fn join(language: Language, items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => {
            let and = match language {
                Language::En => "and",
                Language::PtBr => "e",
            };
            format!("{} {and} {last}", init.join(", "))
        }
    }
}

fn join_or(language: Language, items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => {
            let or = match language {
                Language::En => "or",
                Language::PtBr => "ou",
            };
            format!("{} {or} {last}", init.join(", "))
        }
    }
}
